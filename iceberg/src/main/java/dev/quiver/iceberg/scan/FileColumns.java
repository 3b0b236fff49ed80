package dev.quiver.iceberg.scan;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.io.ObjectReader;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.scan.ParquetFooterBytes;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.physical.scan.ParquetSchemas;
import dev.quiver.binding.physical.scan.ParquetSplit;
import dev.quiver.binding.physical.scan.TypeNormalizer;
import dev.quiver.iceberg.io.QuiverFileIO;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;

/**
 * Reads the columns of one Parquet file that an Iceberg scan asks for by field id, in the table's
 * types: a column the file lacks (added later) reads as NULL, one the file stores under another
 * name (renamed later) or in a narrower type (int for long, float for double, a decimal of lower
 * precision) is matched by its id and widened. The decoding is the binding's ({@link
 * ParquetScanExec}); only the row groups that start within the split's byte range are read, and
 * every batch carries the file position of its first row, which position deletes refer to.
 */
final class FileColumns implements AutoCloseable {
  /** Rows of one batch and the file position of the first. */
  record Batch(VectorSchemaRoot columns, long firstPosition) {}

  private final String path;
  private final List<Field> targets;
  private final int batchSize;
  private final BufferAllocator allocator;

  /** For each target, its column index in {@link #readSchema}, or -1 when the file lacks it. */
  private final int[] source;

  private final Schema readSchema;
  private final long firstPosition;
  private final long rows;
  private final ParquetSplit split;
  private final TaskContext context;
  private BatchStream stream;
  private long position;
  private long synthesized;

  /**
   * Opens the file's footer and maps the columns.
   *
   * @param path the file's location as the table's metadata names it
   * @param fileSize its length, or -1
   * @param start first byte of the range whose row groups are read
   * @param length the range's length ({@code Long.MAX_VALUE}: all row groups)
   * @param targets the columns wanted, in the table's types
   * @param fieldIds each target's Iceberg field id
   */
  FileColumns(
      String path,
      long fileSize,
      long start,
      long length,
      List<Field> targets,
      int[] fieldIds,
      String table,
      TaskContext context,
      int batchSize) {
    this.path = path;
    this.targets = List.copyOf(targets);
    this.batchSize = Math.max(1, batchSize);
    this.context = context;
    this.allocator = context.allocator();
    String location = QuiverFileIO.storeLocation(path);
    ObjectStore store = ObjectStores.forLocation(location, context.config());
    FileMetaData m;
    long size;
    try (ObjectReader in = store.open(location, fileSize)) {
      m = ParquetFooterBytes.cachedMetadata(in);
      size = in.size();
    }
    List<Field> fileFields = ParquetSchemas.toArrow(m, location).getFields();
    Map<Integer, Integer> byId = topLevelFieldIds(m);
    if (byId.isEmpty() && !fileFields.isEmpty()) {
      throw new UnsupportedFeatureException(
          "Iceberg table "
              + table
              + ": data file "
              + path
              + " has no field ids (files added without Iceberg's writers need a name mapping,"
              + " which Quiver does not read yet)");
    }
    List<Field> read = new ArrayList<>();
    this.source = new int[targets.size()];
    for (int i = 0; i < targets.size(); i++) {
      Integer column = byId.get(fieldIds[i]);
      if (column == null) {
        source[i] = -1;
        continue;
      }
      Field fileField = TypeNormalizer.normalize(fileFields.get(column));
      if (!Promotions.readable(fileField, targets.get(i))) {
        throw new DataSourceException(
            "Iceberg table "
                + table
                + ": column "
                + targets.get(i).getName()
                + " (field id "
                + fieldIds[i]
                + ") is "
                + fileField.getType()
                + " in data file "
                + path
                + ", which does not widen to the table's "
                + targets.get(i).getType());
      }
      source[i] = read.size();
      read.add(fileField);
    }
    this.readSchema = new Schema(read);
    // Row groups whose first byte lies in [start, start + length): Iceberg's split offsets are
    // row-group starts, so the ranges of one file cover each row group once.
    List<RowGroup> groups = m.getRow_groups();
    int first = -1;
    int count = 0;
    long before = 0;
    long selectedRows = 0;
    long end = length == Long.MAX_VALUE ? Long.MAX_VALUE : start + length;
    for (int g = 0; g < groups.size(); g++) {
      long at = startOffset(groups.get(g));
      if (at >= start && at < end) {
        if (first < 0) {
          first = g;
        }
        count++;
        selectedRows += groups.get(g).getNum_rows();
      } else if (first < 0) {
        before += groups.get(g).getNum_rows();
      }
    }
    this.firstPosition = before;
    this.rows = selectedRows;
    this.split = count == 0 ? null : ParquetSplit.rowGroups(location, first, count, size);
    this.position = firstPosition;
  }

  /** Each top-level column's Iceberg field id, mapped to its index among the file's columns. */
  private static Map<Integer, Integer> topLevelFieldIds(FileMetaData m) {
    List<SchemaElement> schema = m.getSchema();
    Map<Integer, Integer> byId = new HashMap<>();
    int[] next = {1};
    int top = schema.get(0).getNum_children();
    for (int k = 0; k < top; k++) {
      SchemaElement e = schema.get(next[0]);
      if (e.isSetField_id()) {
        byId.put(e.getField_id(), k);
      }
      skip(schema, next);
    }
    return byId;
  }

  private static void skip(List<SchemaElement> schema, int[] next) {
    SchemaElement e = schema.get(next[0]++);
    int children = e.isSetNum_children() ? e.getNum_children() : 0;
    for (int c = 0; c < children; c++) {
      skip(schema, next);
    }
  }

  /** Where a row group starts, as parquet-java (and so Iceberg's split offsets) tells it. */
  private static long startOffset(RowGroup g) {
    ColumnMetaData c = g.getColumns().get(0).getMeta_data();
    long data = c.getData_page_offset();
    if (c.isSetDictionary_page_offset()
        && c.getDictionary_page_offset() > 0
        && c.getDictionary_page_offset() < data) {
      return c.getDictionary_page_offset();
    }
    return data;
  }

  /** Position in the file of the first row this reader returns. */
  long firstPosition() {
    return firstPosition;
  }

  /** Rows of the row groups read. */
  long rows() {
    return rows;
  }

  /** The next batch of the range's rows with one vector per target, or null at the end. */
  Batch next() {
    if (split == null) {
      return null;
    }
    if (readSchema.getFields().isEmpty()) {
      // No column is read (count(*), or only added columns): the footer's row counts suffice.
      if (synthesized >= rows) {
        return null;
      }
      int n = (int) Math.min(batchSize, rows - synthesized);
      long at = firstPosition + synthesized;
      synthesized += n;
      return new Batch(columns(new ArrayList<>(), n), at);
    }
    if (stream == null) {
      ParquetScanExec scan =
          ParquetScanExec.ofSplits(
              readSchema, List.of(List.of(split)), null, OptionalLong.empty(), batchSize, -1);
      stream = scan.execute(0, context);
    }
    VectorSchemaRoot batch = stream.next();
    if (batch == null) {
      return null;
    }
    long at = position;
    int rowCount = batch.getRowCount();
    position += rowCount;
    List<FieldVector> read = new ArrayList<>(batch.getFieldVectors());
    // The vectors now belong to columns(), which closes what it does not return.
    return new Batch(columns(read, rowCount), at);
  }

  /** The targets' vectors over {@code read} (the file's vectors), NULLs for missing columns. */
  private VectorSchemaRoot columns(List<FieldVector> read, int rowCount) {
    List<FieldVector> out = new ArrayList<>(targets.size());
    boolean[] used = new boolean[read.size()];
    try {
      for (int i = 0; i < targets.size(); i++) {
        Field target = targets.get(i);
        if (source[i] < 0) {
          out.add(Promotions.nulls(target, rowCount, allocator));
        } else {
          used[source[i]] = true;
          out.add(Promotions.convert(read.get(source[i]), target, allocator));
        }
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      for (int k = 0; k < read.size(); k++) {
        if (!used[k]) {
          read.get(k).close();
        }
      }
      throw e;
    }
    for (int k = 0; k < read.size(); k++) {
      if (!used[k]) {
        read.get(k).close();
      }
    }
    return new VectorSchemaRoot(targets, out, rowCount);
  }

  @Override
  public void close() {
    if (stream != null) {
      BatchStream s = stream;
      stream = null;
      s.close();
    }
  }

  @Override
  public String toString() {
    return path;
  }
}
