package dev.quiver.binding.physical.spill;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Take;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/** Rows spilled to disk as an Arrow IPC file; closing it deletes the file. */
public final class SpillFile implements AutoCloseable {
  private final Path path;
  private final Schema schema;
  private final long bytes;
  private final long rows;
  private FileChannel channel;
  private ArrowFileReader reader;
  private int nextBlock;

  private SpillFile(Path path, Schema schema, long bytes, long rows) {
    this.path = path;
    this.schema = schema;
    this.bytes = bytes;
    this.rows = rows;
  }

  /**
   * Writes rows {@code perm[0..count)} of {@code batch}, in that order, in chunks of {@code
   * chunkRows}.
   */
  public static SpillFile write(
      Path dir,
      String prefix,
      VectorSchemaRoot batch,
      int[] perm,
      int count,
      int chunkRows,
      BufferAllocator allocator) {
    try (Writer writer = create(dir, prefix, batch.getSchema(), allocator)) {
      int[] chunk = new int[Math.min(chunkRows, Math.max(count, 1))];
      for (int off = 0; off < count; off += chunkRows) {
        int n = Math.min(chunkRows, count - off);
        System.arraycopy(perm, off, chunk, 0, n);
        writer.append(batch, chunk, n);
      }
      return writer.finish();
    }
  }

  /**
   * Starts a file of {@code schema} in {@code dir} (created if missing), appended batch by batch.
   */
  public static Writer create(Path dir, String prefix, Schema schema, BufferAllocator allocator) {
    Path path;
    try {
      Files.createDirectories(dir);
      path = Files.createTempFile(dir, prefix, ".arrow");
    } catch (IOException e) {
      throw new QuiverException(
          "Cannot create a spill file in "
              + dir
              + ": "
              + e.getMessage()
              + "; set quiver.execution.spill_directory to a writable directory",
          e);
    }
    try {
      return new Writer(path, schema, allocator);
    } catch (IOException | RuntimeException e) {
      deleteQuietly(path);
      if (e instanceof RuntimeException re) {
        throw re;
      }
      throw new QuiverException("Cannot write spill file " + path + ": " + e.getMessage(), e);
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException ignored) {
      // The original failure is the one worth reporting.
    }
  }

  /**
   * An open spill file being appended to; {@link #finish()} hands the file over, {@link #close()}
   * before that deletes it.
   */
  public static final class Writer implements AutoCloseable {
    private final Path path;
    private final Schema schema;
    private final BufferAllocator allocator;
    private final FileChannel channel;
    private final VectorSchemaRoot root;
    private final ArrowFileWriter writer;
    private final VectorLoader loader;
    private long rows;
    private boolean done;

    private Writer(Path path, Schema schema, BufferAllocator allocator) throws IOException {
      this.path = path;
      this.schema = schema;
      this.allocator = allocator;
      this.channel = FileChannel.open(path, StandardOpenOption.WRITE);
      VectorSchemaRoot r = null;
      try {
        r = VectorSchemaRoot.create(schema, allocator);
        this.writer = new ArrowFileWriter(r, null, channel);
        writer.start();
      } catch (IOException | RuntimeException e) {
        if (r != null) {
          r.close();
        }
        channel.close();
        throw e;
      }
      this.root = r;
      this.loader = new VectorLoader(root);
    }

    /** Appends rows {@code idx[0..n)} of {@code batch} as one record batch. */
    public void append(VectorSchemaRoot batch, int[] idx, int n) {
      if (n == 0) {
        return;
      }
      try (VectorSchemaRoot part = Take.take(batch, idx, n, allocator)) {
        append(part);
      }
    }

    /** Appends {@code batch} (still owned by the caller) as one record batch. */
    public void append(VectorSchemaRoot batch) {
      if (batch.getRowCount() == 0) {
        return;
      }
      try (ArrowRecordBatch rb = new VectorUnloader(batch).getRecordBatch()) {
        loader.load(rb);
        writer.writeBatch();
        rows += batch.getRowCount();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write spill file " + path, e);
      }
      // The written buffers need not stay referenced until the next batch.
      root.clear();
    }

    /** Rows appended so far. */
    public long rows() {
      return rows;
    }

    /** Ends the file and hands it over (the caller deletes it by closing it). */
    public SpillFile finish() {
      try {
        writer.end();
        long size = channel.size();
        done = true;
        close();
        return new SpillFile(path, schema, size, rows);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write spill file " + path, e);
      }
    }

    /** Releases the writer; deletes the file unless {@link #finish()} handed it over. */
    @Override
    public void close() {
      try {
        Batches.closeAll(java.util.List.of(writer, root, channel));
      } finally {
        if (!done) {
          deleteQuietly(path);
        }
      }
    }
  }

  /** Bytes on disk. */
  public long bytes() {
    return bytes;
  }

  /** Rows in the file. */
  public long rows() {
    return rows;
  }

  /** Path of the file. */
  public Path path() {
    return path;
  }

  /** Next batch of the file (owned by the caller), or null at its end. */
  public VectorSchemaRoot next(BufferAllocator allocator) {
    try {
      if (reader == null) {
        channel = FileChannel.open(path, StandardOpenOption.READ);
        reader = new ArrowFileReader(channel, allocator);
      }
      if (nextBlock >= reader.getRecordBlocks().size()) {
        return null;
      }
      reader.loadRecordBatch(reader.getRecordBlocks().get(nextBlock++));
      return Batches.transfer(reader.getVectorSchemaRoot(), allocator);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read spill file " + path, e);
    }
  }

  /**
   * A stream over the file's batches, independent of {@link #next} and of other streams (several
   * threads may read one file at once); closing it leaves the file in place.
   */
  public BatchStream stream(BufferAllocator allocator) {
    return new BatchStream() {
      private FileChannel ch;
      private ArrowFileReader in;
      private int block;

      @Override
      public Schema schema() {
        return schema;
      }

      @Override
      public VectorSchemaRoot next() {
        try {
          if (in == null) {
            ch = FileChannel.open(path, StandardOpenOption.READ);
            in = new ArrowFileReader(ch, allocator);
          }
          if (block >= in.getRecordBlocks().size()) {
            return null;
          }
          in.loadRecordBatch(in.getRecordBlocks().get(block++));
          return Batches.transfer(in.getVectorSchemaRoot(), allocator);
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read spill file " + path, e);
        }
      }

      @Override
      public void close() {
        try {
          if (in != null) {
            in.close();
          }
          if (ch != null) {
            ch.close();
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot close spill file " + path, e);
        }
        in = null;
        ch = null;
      }
    };
  }

  @Override
  public void close() {
    try {
      if (reader != null) {
        reader.close();
        reader = null;
      }
      if (channel != null) {
        channel.close();
        channel = null;
      }
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete spill file " + path, e);
    }
  }
}
