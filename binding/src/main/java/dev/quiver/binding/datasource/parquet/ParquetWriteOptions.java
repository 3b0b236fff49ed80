package dev.quiver.binding.datasource.parquet;

/**
 * How {@link ParquetFileWriter} lays out a file.
 *
 * @param codec page compression
 * @param rowGroupRows rows after which a row group is closed
 * @param rowGroupBytes encoded bytes after which a row group is closed, whatever its rows
 * @param pageBytes encoded bytes after which a data page is closed
 * @param dictionaryPageBytes dictionary size past which a column chunk falls back to plain encoding
 * @param dictionary whether columns start dictionary-encoded
 */
public record ParquetWriteOptions(
    ParquetCodec codec,
    int rowGroupRows,
    long rowGroupBytes,
    int pageBytes,
    int dictionaryPageBytes,
    boolean dictionary) {

  /**
   * Rows per row group: what Arrow's dataset writer produced before (its scanner hands the writer
   * batches of 32Ki rows, each a row group), so that scans split files as finely as before; each
   * row group is a split of its own.
   */
  public static final int DEFAULT_ROW_GROUP_ROWS = 32 * 1024;

  /** Caps row groups of very wide rows, which are held in memory until the group is written. */
  public static final long DEFAULT_ROW_GROUP_BYTES = 128L << 20;

  /** Uncompressed, dictionary pages of up to 1 MiB and data pages of 1 MiB, as Arrow writes. */
  public static final ParquetWriteOptions DEFAULT =
      new ParquetWriteOptions(
          ParquetCodec.UNCOMPRESSED,
          DEFAULT_ROW_GROUP_ROWS,
          DEFAULT_ROW_GROUP_BYTES,
          1 << 20,
          1 << 20,
          true);

  public ParquetWriteOptions {
    if (rowGroupRows <= 0 || rowGroupBytes <= 0 || pageBytes <= 0 || dictionaryPageBytes <= 0) {
      throw new IllegalArgumentException(
          "Parquet row group and page sizes must be positive: "
              + rowGroupRows
              + " rows, "
              + rowGroupBytes
              + " bytes, pages of "
              + pageBytes
              + ", dictionaries of "
              + dictionaryPageBytes);
    }
  }

  /** These options with page compression {@code c}. */
  public ParquetWriteOptions withCodec(ParquetCodec c) {
    return new ParquetWriteOptions(
        c, rowGroupRows, rowGroupBytes, pageBytes, dictionaryPageBytes, dictionary);
  }

  /** These options with row groups of at most {@code rows} rows. */
  public ParquetWriteOptions withRowGroupRows(int rows) {
    return new ParquetWriteOptions(
        codec, rows, rowGroupBytes, pageBytes, dictionaryPageBytes, dictionary);
  }

  /** These options with data pages closed after {@code bytes} bytes. */
  public ParquetWriteOptions withPageBytes(int bytes) {
    return new ParquetWriteOptions(
        codec, rowGroupRows, rowGroupBytes, bytes, dictionaryPageBytes, dictionary);
  }

  /** These options with dictionary encoding on or off. */
  public ParquetWriteOptions withDictionary(boolean on) {
    return new ParquetWriteOptions(
        codec, rowGroupRows, rowGroupBytes, pageBytes, dictionaryPageBytes, on);
  }
}
