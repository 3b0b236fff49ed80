package dev.quiver.distributed.shuffle;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow IPC's LZ4_FRAME buffer compression with lz4-java: standard LZ4 frames, so any Arrow reader
 * decodes them. Arrow Java's own codec goes through commons-compress, whose frame encoder
 * compressed a 64 KiB buffer in about 200 ms (apache/arrow-java#192): a shuffle partition of
 * 262,144 rows took 40 s to fetch with it against 23 ms uncompressed ({@code ShuffleBenchmarks}).
 * The Java (not JNI) implementations keep executors free of native libraries extracted at run time;
 * decompression is the bounds-checked one, as frames come over the network.
 */
final class ShuffleLz4Codec extends AbstractCompressionCodec {
  private static final LZ4Factory LZ4 = LZ4Factory.fastestJavaInstance();
  private static final XXHash32 HASH = XXHashFactory.fastestJavaInstance().hash32();

  @Override
  protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
    int length = checkedLength(uncompressed.writerIndex(), "uncompressed");
    byte[] raw = new byte[length];
    uncompressed.getBytes(0, raw);
    ByteArrayOutputStream frame = new ByteArrayOutputStream(length / 2 + 64);
    try (LZ4FrameOutputStream out =
        new LZ4FrameOutputStream(
            frame,
            blockSize(length),
            -1L,
            LZ4.fastCompressor(),
            HASH,
            LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE)) {
      out.write(raw);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    byte[] bytes = frame.toByteArray();
    ArrowBuf out = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + bytes.length);
    out.setBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, bytes);
    out.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + bytes.length);
    return out;
  }

  @Override
  protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
    int expected = checkedLength(readUncompressedLength(compressed), "uncompressed");
    int length =
        checkedLength(
            compressed.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, "compressed");
    byte[] frame = new byte[length];
    compressed.getBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, frame);
    byte[] raw = new byte[expected];
    int read = 0;
    boolean trailing;
    try (LZ4FrameInputStream in =
        new LZ4FrameInputStream(new ByteArrayInputStream(frame), LZ4.safeDecompressor(), HASH)) {
      while (read < expected) {
        int n = in.read(raw, read, expected - read);
        if (n < 0) {
          break;
        }
        read += n;
      }
      trailing = in.read() >= 0;
    } catch (IOException e) {
      throw new IllegalArgumentException("a shuffle buffer is not a valid LZ4 frame: " + e, e);
    }
    if (read != expected || trailing) {
      throw new IllegalArgumentException(
          "a shuffle buffer's LZ4 frame holds "
              + (trailing ? "more than " + expected : String.valueOf(read))
              + " bytes where its header says "
              + expected);
    }
    ArrowBuf out = allocator.buffer(expected);
    out.setBytes(0, raw);
    out.writerIndex(expected);
    return out;
  }

  @Override
  public CompressionUtil.CodecType getCodecType() {
    return CompressionUtil.CodecType.LZ4_FRAME;
  }

  /** The smallest frame block that holds the buffer whole: fewer allocations for small ones. */
  private static LZ4FrameOutputStream.BLOCKSIZE blockSize(int length) {
    for (LZ4FrameOutputStream.BLOCKSIZE b : LZ4FrameOutputStream.BLOCKSIZE.values()) {
      if (length <= 1 << (8 + 2 * b.getIndicator())) {
        return b;
      }
    }
    return LZ4FrameOutputStream.BLOCKSIZE.SIZE_4MB;
  }

  private static int checkedLength(long length, String what) {
    if (length < 0 || length > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          "a shuffle buffer's " + what + " length " + length + " is out of range");
    }
    return (int) length;
  }
}
