package dev.quiver.iceberg.scan;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.io.ObjectReader;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.iceberg.io.QuiverFileIO;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.deletes.PositionDeleteIndex;

/**
 * Loads the delete files a scan partition's splits carry, each once per partition: position deletes
 * (Parquet rows of data file and position, or a format-v3 deletion vector) as the sorted positions
 * deleted from each data file, equality deletes as the set of deleted key values.
 */
final class DeleteLoader {
  /** Iceberg's reserved field ids of a position delete file's columns. */
  static final int FILE_PATH_ID = 2147483546;

  static final int POS_ID = 2147483545;

  private static final Field FILE_PATH =
      new Field("file_path", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null);
  private static final Field POS =
      new Field("pos", FieldType.notNullable(new ArrowType.Int(64, true)), null);

  /** Deleted key values of an equality delete file, over {@code fieldIds}. */
  record EqualityDeletes(int[] fieldIds, Set<List<Object>> keys) {}

  private final Map<Integer, Field> fieldsById;
  private final String table;
  private final TaskContext context;
  private final int batchSize;
  private final Map<String, Map<String, long[]>> positionFiles = new HashMap<>();
  private final Map<String, long[]> vectors = new HashMap<>();
  private final Map<String, EqualityDeletes> equalityFiles = new HashMap<>();

  DeleteLoader(Map<Integer, Field> fieldsById, String table, TaskContext context, int batchSize) {
    this.fieldsById = fieldsById;
    this.table = table;
    this.context = context;
    this.batchSize = batchSize;
  }

  /** The sorted positions deleted from the split's data file by its position deletes. */
  long[] deletedPositions(IcebergSplit split) {
    List<long[]> parts = new ArrayList<>();
    for (DeleteRef d : split.deletes()) {
      if (d.kind() == DeleteRef.Kind.POSITION) {
        long[] p = positionFiles.computeIfAbsent(d.path(), k -> readPositions(d)).get(split.path());
        if (p != null) {
          parts.add(p);
        }
      } else if (d.kind() == DeleteRef.Kind.DELETION_VECTOR) {
        parts.add(vectors.computeIfAbsent(d.path() + "#" + d.contentOffset(), k -> readVector(d)));
      }
    }
    if (parts.size() == 1) {
      return parts.get(0);
    }
    long[] all = parts.stream().flatMapToLong(Arrays::stream).toArray();
    Arrays.sort(all);
    return all;
  }

  /** The split's equality deletes, one set of keys per delete file. */
  List<EqualityDeletes> equalityDeletes(IcebergSplit split) {
    List<EqualityDeletes> out = new ArrayList<>();
    for (DeleteRef d : split.deletes()) {
      if (d.kind() == DeleteRef.Kind.EQUALITY) {
        out.add(equalityFiles.computeIfAbsent(d.path(), k -> readEquality(d)));
      }
    }
    return out;
  }

  private Map<String, long[]> readPositions(DeleteRef d) {
    Map<String, List<Long>> byFile = new HashMap<>();
    try (FileColumns file =
        new FileColumns(
            d.path(),
            d.fileSize(),
            0,
            Long.MAX_VALUE,
            List.of(FILE_PATH, POS),
            new int[] {FILE_PATH_ID, POS_ID},
            table,
            context,
            batchSize)) {
      for (FileColumns.Batch b = file.next(); b != null; b = file.next()) {
        try (VectorSchemaRoot root = b.columns()) {
          VarCharVector paths = (VarCharVector) root.getVector(0);
          BigIntVector pos = (BigIntVector) root.getVector(1);
          String last = null;
          List<Long> target = null;
          for (int i = 0; i < root.getRowCount(); i++) {
            if (paths.isNull(i) || pos.isNull(i)) {
              throw new DataSourceException(
                  "Iceberg table " + table + ": position delete file " + d.path() + " has NULLs");
            }
            String p = new String(paths.get(i), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.equals(last)) {
              last = p;
              target = byFile.computeIfAbsent(p, k -> new ArrayList<>());
            }
            target.add(pos.get(i));
          }
        }
      }
    }
    Map<String, long[]> out = new HashMap<>();
    byFile.forEach(
        (k, v) -> {
          long[] a = v.stream().mapToLong(Long::longValue).toArray();
          Arrays.sort(a);
          out.put(k, a);
        });
    return out;
  }

  private long[] readVector(DeleteRef d) {
    String location = QuiverFileIO.storeLocation(d.path());
    byte[] blob;
    try (ObjectReader in =
        ObjectStores.forLocation(location, context.config()).open(location, d.fileSize())) {
      blob = in.read(d.contentOffset(), Math.toIntExact(d.contentLength()));
    }
    DeleteFile file =
        FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
            .ofPositionDeletes()
            .withFormat(FileFormat.PUFFIN)
            .withPath(d.path())
            .withFileSizeInBytes(d.fileSize())
            .withRecordCount(d.recordCount())
            .withContentOffset(d.contentOffset())
            .withContentSizeInBytes(d.contentLength())
            .withReferencedDataFile(d.referencedDataFile())
            .build();
    PositionDeleteIndex index;
    try {
      index = PositionDeleteIndex.deserialize(blob, file);
    } catch (RuntimeException e) {
      throw new DataSourceException(
          "Iceberg table "
              + table
              + ": cannot read the deletion vector in "
              + d.path()
              + ": "
              + e.getMessage(),
          e);
    }
    long[] out = new long[(int) index.cardinality()];
    int[] n = {0};
    index.forEach(p -> out[n[0]++] = p);
    Arrays.sort(out);
    return out;
  }

  private EqualityDeletes readEquality(DeleteRef d) {
    List<Integer> ids = d.equalityFieldIds();
    List<Field> fields = new ArrayList<>();
    int[] fieldIds = new int[ids.size()];
    for (int i = 0; i < ids.size(); i++) {
      Field f = fieldsById.get(ids.get(i));
      if (f == null) {
        throw new UnsupportedFeatureException(
            "Iceberg table "
                + table
                + ": equality delete file "
                + d.path()
                + " matches on field id "
                + ids.get(i)
                + ", which is not a top-level column of the table's schema");
      }
      fields.add(f);
      fieldIds[i] = ids.get(i);
    }
    Set<List<Object>> keys = new HashSet<>();
    try (FileColumns file =
        new FileColumns(
            d.path(),
            d.fileSize(),
            0,
            Long.MAX_VALUE,
            fields,
            fieldIds,
            table,
            context,
            batchSize)) {
      for (FileColumns.Batch b = file.next(); b != null; b = file.next()) {
        try (VectorSchemaRoot root = b.columns()) {
          List<FieldVector> vs = root.getFieldVectors();
          for (int i = 0; i < root.getRowCount(); i++) {
            keys.add(key(vs, i));
          }
        }
      }
    }
    return new EqualityDeletes(fieldIds, keys);
  }

  /** Row {@code i}'s values of {@code columns}, comparable across files read in one type. */
  static List<Object> key(List<FieldVector> columns, int i) {
    List<Object> key = new ArrayList<>(columns.size());
    for (FieldVector v : columns) {
      Object o = v.getObject(i);
      key.add(o instanceof org.apache.arrow.vector.util.Text t ? t.toString() : o);
    }
    return key;
  }
}
