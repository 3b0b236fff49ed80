package dev.quiver.iceberg.scan;

import java.util.List;

/**
 * What one scan partition reads of one Iceberg data file: the row groups that start within a byte
 * range (Iceberg splits files at row-group offsets, so ranges of one file never share a row group),
 * with the delete files that apply to it.
 *
 * @param path the data file's location, as the table's metadata names it (position deletes name it
 *     so)
 * @param fileSize the file's length in bytes
 * @param start the first byte of the range
 * @param length the range's length in bytes
 * @param recordCount rows in the whole file
 * @param deletes the delete files to apply
 */
public record IcebergSplit(
    String path,
    long fileSize,
    long start,
    long length,
    long recordCount,
    List<DeleteRef> deletes) {
  public IcebergSplit {
    deletes = deletes == null ? List.of() : List.copyOf(deletes);
  }

  @Override
  public String toString() {
    String name = path.substring(path.lastIndexOf('/') + 1);
    String range = start == 0 && length >= fileSize ? "" : "[" + start + "+" + length + "]";
    return name + range + (deletes.isEmpty() ? "" : " -" + deletes.size() + " deletes");
  }
}
