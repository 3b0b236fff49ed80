package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.io.ObjectReader;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.physical.scan.ParquetFooterBytes;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Statistics;

/**
 * What Quiver needs from a Parquet file's footer: total rows and, per row group, rows, sizes and
 * column statistics, taken from the footer as parquet-format decodes it.
 */
record ParquetFooter(long fileBytes, long numRows, List<RowGroup> rowGroups) {
  /** One row group: its rows, its uncompressed size, its size on disk and its column chunks. */
  record RowGroup(
      long numRows, long uncompressedBytes, long compressedBytes, List<ColumnChunk> columns) {

    /** The chunk of the column at dotted path {@code path}, or null when absent. */
    ColumnChunk column(String path) {
      for (ColumnChunk c : columns) {
        if (c.path().equals(path)) {
          return c;
        }
      }
      return null;
    }
  }

  /** Parquet physical types (the Thrift {@code Type} enum). */
  static final int BOOLEAN = 0;

  static final int INT32 = 1;
  static final int INT64 = 2;
  static final int INT96 = 3;
  static final int FLOAT = 4;
  static final int DOUBLE = 5;
  static final int BYTE_ARRAY = 6;
  static final int FIXED_LEN_BYTE_ARRAY = 7;

  /**
   * One column chunk's statistics.
   *
   * @param path the column's dotted path in the schema
   * @param physicalType the Parquet physical type, or -1 when unknown
   * @param min the encoded minimum, or null when unknown
   * @param max the encoded maximum, or null when unknown
   * @param nullCount nulls in the chunk, or -1 when unknown
   */
  record ColumnChunk(String path, int physicalType, byte[] min, byte[] max, long nullCount) {}

  /** Uncompressed bytes of all row groups. */
  long uncompressedBytes() {
    return rowGroups.stream().mapToLong(RowGroup::uncompressedBytes).sum();
  }

  /**
   * Reads the footer of local file or object {@code location}; throws {@link DataSourceException}
   * naming it when it is not valid Parquet.
   */
  static ParquetFooter read(String location) {
    ObjectStore store = ObjectStores.forLocation(location, null);
    try (ObjectReader in = store.open(ObjectStores.normalize(location), -1)) {
      return of(in.location(), in.size(), ParquetFooterBytes.readMetadata(in));
    }
  }

  /** What {@code m}, the decoded footer of {@code location} ({@code fileBytes} long), says. */
  static ParquetFooter of(String location, long fileBytes, FileMetaData m) {
    try {
      return of(fileBytes, m);
    } catch (RuntimeException e) {
      throw ParquetFooterBytes.corrupt(
          location, "its footer cannot be decoded (" + e.getMessage() + ")");
    }
  }

  private static ParquetFooter of(long fileBytes, FileMetaData m) {
    List<RowGroup> groups = new ArrayList<>(m.getRow_groupsSize());
    for (org.apache.parquet.format.RowGroup g : m.getRow_groups()) {
      List<ColumnChunk> columns = new ArrayList<>(g.getColumnsSize());
      long columnsCompressed = 0;
      for (org.apache.parquet.format.ColumnChunk c : g.getColumns()) {
        if (!c.isSetMeta_data()) {
          columns.add(new ColumnChunk("", -1, null, null, -1));
          continue;
        }
        ColumnMetaData md = c.getMeta_data();
        columnsCompressed += md.getTotal_compressed_size();
        columns.add(columnChunk(md));
      }
      long compressed =
          g.isSetTotal_compressed_size() ? g.getTotal_compressed_size() : columnsCompressed;
      groups.add(
          new RowGroup(g.getNum_rows(), g.getTotal_byte_size(), compressed, List.copyOf(columns)));
    }
    return new ParquetFooter(fileBytes, m.getNum_rows(), List.copyOf(groups));
  }

  private static ColumnChunk columnChunk(ColumnMetaData md) {
    int type = md.isSetType() ? md.getType().getValue() : -1;
    String path = String.join(".", md.getPath_in_schema());
    if (!md.isSetStatistics()) {
      return new ColumnChunk(path, type, null, null, -1);
    }
    Statistics st = md.getStatistics();
    byte[] min = st.isSetMin_value() ? st.getMin_value() : null;
    byte[] max = st.isSetMax_value() ? st.getMax_value() : null;
    // The deprecated min/max use signed order, which is only right for signed numeric types.
    if ((min == null || max == null)
        && (type == INT32 || type == INT64 || type == FLOAT || type == DOUBLE)) {
      min = st.isSetMin() ? st.getMin() : null;
      max = st.isSetMax() ? st.getMax() : null;
    }
    if (min == null || max == null) {
      min = null;
      max = null;
    }
    long nullCount = st.isSetNull_count() ? st.getNull_count() : -1;
    return new ColumnChunk(path, type, min, max, nullCount);
  }
}
