package dev.quiver.binding.physical.scan;

/**
 * What one scan partition reads of a Parquet file: the whole file, or a contiguous range of its row
 * groups (so that a file can be split over partitions, and row groups whose statistics refute the
 * filters are never read).
 *
 * @param path the file's location: an absolute local path or an object URI ({@code s3://...})
 * @param firstRowGroup index of the first row group read; 0 for a whole file
 * @param rowGroupCount row groups read; -1 for the whole file
 * @param fileSize the file's length in bytes when known (saves a request to learn it), else -1
 * @param partitionValues the file's values of the table's partition columns (Hive folders), as
 *     folder text, null for NULL; empty when the table has none
 * @param version the version of the file the table was planned from (an S3 ETag), so that reads of
 *     a replaced object fail instead of mixing two contents; null when the store has none
 */
public record ParquetSplit(
    String path,
    int firstRowGroup,
    int rowGroupCount,
    long fileSize,
    java.util.List<String> partitionValues,
    String version) {
  public ParquetSplit {
    partitionValues =
        partitionValues == null || partitionValues.isEmpty()
            ? java.util.List.of()
            : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(partitionValues));
    if (firstRowGroup < 0 || rowGroupCount == 0 || rowGroupCount < -1) {
      throw new IllegalArgumentException(
          "Invalid row group range " + firstRowGroup + "+" + rowGroupCount + " of " + path);
    }
    if (rowGroupCount < 0 && firstRowGroup != 0) {
      throw new IllegalArgumentException("A whole-file split of " + path + " starts at 0");
    }
    if (fileSize < -1) {
      throw new IllegalArgumentException("Invalid size " + fileSize + " of " + path);
    }
  }

  /** A split of a file whose size is not known. */
  public ParquetSplit(String path, int firstRowGroup, int rowGroupCount) {
    this(path, firstRowGroup, rowGroupCount, -1, null, null);
  }

  /** A split of a file outside partition folders. */
  public ParquetSplit(String path, int firstRowGroup, int rowGroupCount, long fileSize) {
    this(path, firstRowGroup, rowGroupCount, fileSize, null, null);
  }

  /** This split with the file's partition values. */
  public ParquetSplit withPartitionValues(java.util.List<String> values) {
    return new ParquetSplit(path, firstRowGroup, rowGroupCount, fileSize, values, version);
  }

  /** This split of the file's {@code version} (null: whatever the store holds). */
  public ParquetSplit withVersion(String version) {
    return new ParquetSplit(path, firstRowGroup, rowGroupCount, fileSize, partitionValues, version);
  }

  /** All of {@code path}. */
  public static ParquetSplit wholeFile(String path) {
    return new ParquetSplit(path, 0, -1, -1, null, null);
  }

  /** All of {@code path}, {@code size} bytes long. */
  public static ParquetSplit wholeFile(String path, long size) {
    return new ParquetSplit(path, 0, -1, size, null, null);
  }

  /** Row groups {@code first} to {@code first + count - 1} of {@code path}. */
  public static ParquetSplit rowGroups(String path, int first, int count) {
    return new ParquetSplit(path, first, count, -1, null, null);
  }

  /** Row groups {@code first} to {@code first + count - 1} of {@code path}, {@code size} long. */
  public static ParquetSplit rowGroups(String path, int first, int count, long size) {
    return new ParquetSplit(path, first, count, size, null, null);
  }

  /** Whether the split is the whole file (read by Arrow Dataset) rather than a row-group range. */
  public boolean isWholeFile() {
    return rowGroupCount < 0;
  }

  @Override
  public String toString() {
    String name = path.substring(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
    if (isWholeFile()) {
      return name;
    }
    return rowGroupCount == 1
        ? name + "[rg " + firstRowGroup + "]"
        : name + "[rg " + firstRowGroup + "-" + (firstRowGroup + rowGroupCount - 1) + "]";
  }
}
