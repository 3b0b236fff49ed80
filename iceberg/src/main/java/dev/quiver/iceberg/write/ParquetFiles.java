package dev.quiver.iceberg.write;

import dev.quiver.binding.datasource.FileWriters;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.iceberg.io.QuiverFileIO;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * The one place the Iceberg writer calls a Parquet writer: batches in, one file out. Fields carry
 * their Iceberg field ids as Arrow metadata {@link #FIELD_ID}, which the writer stores as Parquet
 * field ids. Swapping the Parquet writer touches this class only.
 */
final class ParquetFiles {
  /** The Arrow field metadata key Parquet writers read field ids from. */
  static final String FIELD_ID = "PARQUET:field_id";

  /** A written file: its rows and its size in bytes. */
  record Written(long rows, long bytes) {}

  private ParquetFiles() {}

  /**
   * Writes every batch of {@code batches} as one Parquet file at {@code location} (an Iceberg
   * location, local or {@code s3://}); the file appears only once complete.
   */
  static Written write(
      ArrowReader batches, String location, QuiverFileIO io, BufferAllocator allocator) {
    SessionConfig config = io.config();
    long rows =
        FileWriters.writeParquetFile(
            batches, QuiverFileIO.storeLocation(location), config, allocator);
    return new Written(rows, io.newInputFile(location).getLength());
  }
}
