package dev.quiver.executor.shuffle;

import dev.quiver.distributed.shuffle.ShuffleCompression;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/** Reads one shuffle partition's batches in order: spilled files first, then memory. */
public final class PartitionReader implements AutoCloseable {

  private final Schema schema;
  private final List<Path> files;
  private final List<ArrowRecordBatch> inMemory;
  private final BufferAllocator allocator;
  private final Optional<ShuffleCompression> compression;
  private int nextFile;
  private int nextInMemory;
  private ArrowFileReader current;

  PartitionReader(
      Schema schema,
      List<Path> files,
      List<ArrowRecordBatch> inMemory,
      BufferAllocator allocator,
      Optional<ShuffleCompression> compression) {
    this.schema = schema;
    this.compression = compression;
    this.files = files;
    this.inMemory = inMemory;
    this.allocator = allocator;
  }

  /** The partition's schema; targets passed to {@link #loadNext} must have it. */
  public Schema schema() {
    return schema;
  }

  /** The compression its task asked for; empty for the executor's default. */
  public Optional<ShuffleCompression> compression() {
    return compression;
  }

  /**
   * Loads the next batch into {@code target}, replacing its contents.
   *
   * @return false when the partition has no more batches
   */
  public boolean loadNext(VectorSchemaRoot target) throws IOException {
    VectorLoader loader = new VectorLoader(target);
    while (true) {
      if (current != null) {
        if (current.loadNextBatch()) {
          try (ArrowRecordBatch rb =
              new VectorUnloader(current.getVectorSchemaRoot()).getRecordBatch()) {
            loader.load(rb);
          }
          return true;
        }
        current.close();
        current = null;
      }
      if (nextFile < files.size()) {
        Path file = files.get(nextFile++);
        current = new ArrowFileReader(FileChannel.open(file, StandardOpenOption.READ), allocator);
        continue;
      }
      if (nextInMemory < inMemory.size()) {
        try (ArrowRecordBatch rb = inMemory.set(nextInMemory++, null)) {
          loader.load(rb);
        }
        return true;
      }
      return false;
    }
  }

  /** Releases whatever has not been read. */
  @Override
  public void close() throws IOException {
    for (int i = nextInMemory; i < inMemory.size(); i++) {
      inMemory.get(i).close();
    }
    nextInMemory = inMemory.size();
    if (current != null) {
      current.close();
      current = null;
    }
  }
}
