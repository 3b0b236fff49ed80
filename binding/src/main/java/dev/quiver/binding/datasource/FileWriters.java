package dev.quiver.binding.datasource;

import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/** STUB (signature fixed; owner replaces the body). Writes a stream of batches as files. */
public final class FileWriters {
  private FileWriters() {}

  /** Writes every batch of {@code reader} as Parquet into directory {@code dir}; returns rows written. */
  public static long writeParquet(ArrowReader reader, Path dir, BufferAllocator allocator) {
    throw new UnsupportedOperationException("pending");
  }

  /** Writes every batch of {@code reader} as CSV with a header into directory {@code dir}; returns rows written. */
  public static long writeCsv(ArrowReader reader, Path dir) {
    throw new UnsupportedOperationException("pending");
  }
}
