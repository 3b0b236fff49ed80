package dev.quiver.distributed.shuffle;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One record batch as one self-contained Arrow IPC stream message (continuation marker, metadata,
 * body) whose buffers are compressed with the IPC format's body compression. Flight 18.3.0 cannot
 * compress {@code DoGet} bodies through its public API, so shuffle streams carry these messages in
 * the Flight message's {@code app_metadata} with an empty body.
 */
public final class CompressedBatches {
  private CompressedBatches() {}

  /**
   * Encodes the rows of {@code batch}, compressing each buffer with {@code codec}.
   *
   * @return a buffer from {@code allocator} holding the message in its readable bytes; the caller
   *     owns it
   */
  public static ArrowBuf encode(
      VectorSchemaRoot batch, CompressionCodec codec, BufferAllocator allocator) {
    try (ArrowRecordBatch rb = new VectorUnloader(batch, true, codec, true).getRecordBatch()) {
      // The body plus room for the flatbuffer metadata, which grows with the buffer count.
      long initial = rb.computeBodyLength() + 256 + 64L * rb.getBuffers().size();
      BufChannel out = new BufChannel(allocator, initial);
      try {
        MessageSerializer.serialize(new WriteChannel(out), rb, IpcOption.DEFAULT);
        return out.take();
      } catch (IOException | RuntimeException e) {
        out.release();
        throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
      }
    }
  }

  /**
   * Decodes a message written by {@link #encode} into a new batch of {@code schema} allocated from
   * {@code target} (decompressed buffers are allocated there directly).
   *
   * @throws IllegalArgumentException if {@code message} is not a record batch message
   */
  public static VectorSchemaRoot decode(ArrowBuf message, Schema schema, BufferAllocator target) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, target);
    try (ArrowRecordBatch rb = readBatch(message, target)) {
      new VectorLoader(root, ShuffleCodecs.INSTANCE).load(rb);
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  /**
   * Reads the batch of {@code message} with its body copied into {@code target}: buffers the codec
   * left uncompressed are loaded as slices of the body, so the batch must not point into the
   * transport's buffer.
   */
  private static ArrowRecordBatch readBatch(ArrowBuf message, BufferAllocator target) {
    long length = message.writerIndex() > 0 ? message.writerIndex() : message.capacity();
    ReadChannel in = new ReadChannel(new BufReadChannel(message, length));
    MessageMetadataResult meta;
    try {
      meta = MessageSerializer.readMessage(in);
    } catch (IOException | RuntimeException e) {
      throw invalid(e);
    }
    if (meta == null || meta.getMessage().headerType() != MessageHeader.RecordBatch) {
      throw new IllegalArgumentException(
          "a compressed shuffle message must hold one Arrow IPC record batch");
    }
    long bodyStart = in.bytesRead();
    long bodyLength = meta.getMessageBodyLength();
    if (bodyLength < 0 || bodyStart + bodyLength > length) {
      throw new IllegalArgumentException(
          "a compressed shuffle message is truncated: its Arrow IPC body needs "
              + bodyLength
              + " bytes, "
              + (length - bodyStart)
              + " are there");
    }
    ArrowBuf body = target.buffer(bodyLength);
    try {
      body.setBytes(0, message, bodyStart, bodyLength);
      // Takes over the body (releases our reference) once the batch holds its slices.
      return MessageSerializer.deserializeRecordBatch(meta.getMessage(), body);
    } catch (IOException | RuntimeException e) {
      if (body.refCnt() > 0) {
        body.close();
      }
      throw invalid(e);
    }
  }

  private static IllegalArgumentException invalid(Exception e) {
    return new IllegalArgumentException(
        "a compressed shuffle message is not a valid Arrow IPC message: " + e, e);
  }

  /** A write channel that appends to an Arrow buffer, growing it by doubling. */
  private static final class BufChannel implements WritableByteChannel {
    private final BufferAllocator allocator;
    private ArrowBuf buf;
    private long size;

    BufChannel(BufferAllocator allocator, long initialCapacity) {
      this.allocator = allocator;
      this.buf = allocator.buffer(initialCapacity);
    }

    @Override
    public int write(ByteBuffer src) {
      int n = src.remaining();
      ensure(size + n);
      buf.setBytes(size, src.slice());
      src.position(src.limit());
      size += n;
      return n;
    }

    private void ensure(long capacity) {
      if (capacity <= buf.capacity()) {
        return;
      }
      ArrowBuf bigger = allocator.buffer(Math.max(capacity, buf.capacity() * 2));
      bigger.setBytes(0, buf, 0, size);
      buf.close();
      buf = bigger;
    }

    /** Hands the buffer over with its writer index at the end of what was written. */
    ArrowBuf take() {
      buf.readerIndex(0);
      buf.writerIndex(size);
      ArrowBuf out = buf;
      buf = null;
      return out;
    }

    void release() {
      if (buf != null) {
        buf.close();
        buf = null;
      }
    }

    @Override
    public boolean isOpen() {
      return buf != null;
    }

    @Override
    public void close() {}
  }

  /** Reads the first {@code length} bytes of an Arrow buffer. */
  private static final class BufReadChannel implements ReadableByteChannel {
    private final ArrowBuf buf;
    private final long length;
    private long position;

    BufReadChannel(ArrowBuf buf, long length) {
      this.buf = buf;
      this.length = length;
    }

    @Override
    public int read(ByteBuffer dst) {
      if (position >= length) {
        return -1;
      }
      int n = (int) Math.min(dst.remaining(), length - position);
      ByteBuffer slice = dst.slice();
      slice.limit(n);
      buf.getBytes(position, slice);
      dst.position(dst.position() + n);
      position += n;
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
