package dev.quiver.iceberg.scan;

import java.util.List;

/**
 * A delete file that applies to a data file split, as the plan carries it to whoever reads the
 * split. Iceberg's planning has already chosen the delete files by sequence number (equality
 * deletes apply to data files of lower data sequence numbers, position deletes to those of lower or
 * equal ones), so every delete a split carries applies to it.
 *
 * @param path the delete file's location, as the table's metadata names it
 * @param kind what the file holds
 * @param fileSize its length in bytes
 * @param recordCount the deletes it holds
 * @param equalityFieldIds for equality deletes, the field ids whose values identify deleted rows
 * @param contentOffset for a deletion vector, where its blob starts in the Puffin file; else -1
 * @param contentLength for a deletion vector, its blob's length; else -1
 * @param referencedDataFile for a deletion vector, the data file it deletes from; else null
 */
public record DeleteRef(
    String path,
    Kind kind,
    long fileSize,
    long recordCount,
    List<Integer> equalityFieldIds,
    long contentOffset,
    long contentLength,
    String referencedDataFile) {
  /** The kinds of delete files. */
  public enum Kind {
    /** Parquet rows of (file_path, pos). */
    POSITION,
    /** Parquet rows of the equality columns' values. */
    EQUALITY,
    /** A Roaring bitmap of deleted positions in a Puffin file (format v3). */
    DELETION_VECTOR
  }

  public DeleteRef {
    equalityFieldIds = equalityFieldIds == null ? List.of() : List.copyOf(equalityFieldIds);
  }
}
