package dev.quiver.binding.physical.sort;

import dev.quiver.binding.QuiverException;
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

/** A sorted run spilled to disk as an Arrow IPC file; closing it deletes the file. */
final class SpillFile implements AutoCloseable {
  private final Path path;
  private final long bytes;
  private FileChannel channel;
  private ArrowFileReader reader;
  private int nextBlock;

  private SpillFile(Path path, long bytes) {
    this.path = path;
    this.bytes = bytes;
  }

  /**
   * Writes rows {@code perm[0..count)} of {@code batch}, in that order, in chunks of
   * {@code chunkRows}.
   */
  static SpillFile write(
      Path dir,
      String prefix,
      VectorSchemaRoot batch,
      int[] perm,
      int count,
      int chunkRows,
      BufferAllocator allocator) {
    Path path;
    try {
      Files.createDirectories(dir);
      path = Files.createTempFile(dir, prefix, ".arrow");
    } catch (IOException e) {
      throw new QuiverException(
          "Cannot create a spill file in " + dir + ": " + e.getMessage()
              + "; set quiver.execution.spill_directory to a writable directory", e);
    }
    Schema schema = batch.getSchema();
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE);
        VectorSchemaRoot writerRoot = VectorSchemaRoot.create(schema, allocator);
        ArrowFileWriter writer = new ArrowFileWriter(writerRoot, null, ch)) {
      writer.start();
      VectorLoader loader = new VectorLoader(writerRoot);
      int[] chunk = new int[Math.min(chunkRows, Math.max(count, 1))];
      for (int off = 0; off < count; off += chunkRows) {
        int n = Math.min(chunkRows, count - off);
        System.arraycopy(perm, off, chunk, 0, n);
        try (VectorSchemaRoot part = Take.take(batch, chunk, n, allocator);
            ArrowRecordBatch rb = new VectorUnloader(part).getRecordBatch()) {
          loader.load(rb);
          writer.writeBatch();
        }
      }
      writer.end();
      long size = ch.size();
      return new SpillFile(path, size);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(path);
      } catch (IOException ignored) {
        // The original failure is the one worth reporting.
      }
      if (e instanceof RuntimeException re) {
        throw re;
      }
      throw new QuiverException("Cannot write spill file " + path + ": " + e.getMessage(), e);
    }
  }

  /** Bytes on disk. */
  long bytes() {
    return bytes;
  }

  /** Path of the file. */
  Path path() {
    return path;
  }

  /** Next batch of the run (owned by the caller), or null at its end. */
  VectorSchemaRoot next(BufferAllocator allocator) {
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
