package dev.quiver.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Writes an Iceberg table with Iceberg's own generic writers (data files per partition, position
 * and equality deletes, each its own commit) and keeps the rows it should hold, with Iceberg's
 * semantics: a position delete removes one row of one file; an equality delete removes the rows of
 * its partition (same spec and values) written in earlier commits whose key columns equal a deleted
 * key (NULL matching NULL). The expected rows of any snapshot load into DuckDB for comparison.
 */
final class IcebergModel {
  /** One row as written: its values by field id, where it is and when it was written. */
  static final class Row {
    final Map<Integer, Object> values;
    final String file;
    final long position;
    final int specId;
    final String partition;
    final long sequence;

    Row(
        Map<Integer, Object> values,
        String file,
        long position,
        int specId,
        String partition,
        long sequence) {
      this.values = values;
      this.file = file;
      this.position = position;
      this.specId = specId;
      this.partition = partition;
      this.sequence = sequence;
    }
  }

  final Table table;
  final List<Row> live = new ArrayList<>();
  final Map<Long, List<Row>> bySnapshot = new LinkedHashMap<>();
  private int fileCount;

  IcebergModel(Table table) {
    this.table = table;
  }

  /** Appends rows (values by column name of the current schema), one file per partition. */
  List<DataFile> append(List<Map<String, Object>> rows) {
    Schema schema = table.schema();
    PartitionSpec spec = table.spec();
    Map<String, List<Record>> groups = new LinkedHashMap<>();
    Map<String, PartitionKey> keys = new HashMap<>();
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    for (Map<String, Object> values : rows) {
      Record r = GenericRecord.create(schema);
      values.forEach(r::setField);
      PartitionKey key = new PartitionKey(spec, schema);
      key.partition(wrapper.wrap(r));
      String k = key.toString();
      groups.computeIfAbsent(k, x -> new ArrayList<>()).add(r);
      keys.putIfAbsent(k, key.copy());
    }
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, ++fileCount).format(FileFormat.PARQUET).build();
    List<DataFile> written = new ArrayList<>();
    List<Row> added = new ArrayList<>();
    long sequence = nextSequence();
    for (Map.Entry<String, List<Record>> g : groups.entrySet()) {
      PartitionKey key = keys.get(g.getKey());
      // Iceberg's location provider puts an unpartitioned file under "data//" when given a key.
      EncryptedOutputFile out =
          spec.isUnpartitioned() ? files.newOutputFile() : files.newOutputFile(spec, key);
      DataWriter<Record> w = writers.newDataWriter(out, spec, key);
      try (w) {
        for (Record r : g.getValue()) {
          w.write(r);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      DataFile f = w.toDataFile();
      written.add(f);
      long pos = 0;
      for (Record r : g.getValue()) {
        Map<Integer, Object> byId = new HashMap<>();
        for (Types.NestedField c : schema.columns()) {
          byId.put(c.fieldId(), r.getField(c.name()));
        }
        added.add(
            new Row(
                byId,
                f.location(),
                pos++,
                spec.specId(),
                partitionKey(spec.specId(), f.partition()),
                sequence));
      }
    }
    var append = table.newAppend();
    written.forEach(append::appendFile);
    append.commit();
    live.addAll(added);
    snapshot();
    return written;
  }

  /** Deletes the live rows {@code which} picks by position (position delete files per file). */
  void deletePositions(java.util.function.Predicate<Row> which) {
    Map<String, List<Row>> byFile =
        live.stream()
            .filter(which)
            .collect(Collectors.groupingBy(r -> r.file, LinkedHashMap::new, Collectors.toList()));
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 2, ++fileCount).format(FileFormat.PARQUET).build();
    RowDelta delta = table.newRowDelta();
    for (Map.Entry<String, List<Row>> e : byFile.entrySet()) {
      Row first = e.getValue().get(0);
      PartitionSpec spec = table.specs().get(first.specId);
      StructLike partition = partitionOf(first.file);
      EncryptedOutputFile out = files.newOutputFile(spec, partition);
      PositionDeleteWriter<Record> w = writers.newPositionDeleteWriter(out, spec, partition);
      try (w) {
        PositionDelete<Record> d = PositionDelete.create();
        for (Row r :
            e.getValue().stream().sorted((a, b) -> Long.compare(a.position, b.position)).toList()) {
          w.write(d.set(r.file, r.position));
        }
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
      DeleteFile df = w.toDeleteFile();
      delta.addDeletes(df);
    }
    delta.commit();
    live.removeIf(which);
    snapshot();
  }

  /**
   * Writes equality deletes on columns {@code columns} for the keys of the live rows {@code which}
   * picks, in each of their partitions; removes what Iceberg removes.
   */
  void deleteEqual(List<String> columns, java.util.function.Predicate<Row> which) {
    Schema schema = table.schema();
    int[] ids = columns.stream().mapToInt(c -> schema.findField(c).fieldId()).toArray();
    Schema keySchema = schema.select(columns);
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(ids)
            .equalityDeleteRowSchema(keySchema)
            .build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 3, ++fileCount).format(FileFormat.PARQUET).build();
    Map<String, List<Row>> byPartition =
        live.stream()
            .filter(which)
            .collect(
                Collectors.groupingBy(
                    r -> r.specId + "/" + r.partition, LinkedHashMap::new, Collectors.toList()));
    long sequence = nextSequence();
    RowDelta delta = table.newRowDelta();
    List<java.util.function.Predicate<Row>> removed = new ArrayList<>();
    for (List<Row> group : byPartition.values()) {
      Row first = group.get(0);
      PartitionSpec spec = table.specs().get(first.specId);
      StructLike partition = partitionOf(first.file);
      EncryptedOutputFile out = files.newOutputFile(spec, partition);
      EqualityDeleteWriter<Record> w = writers.newEqualityDeleteWriter(out, spec, partition);
      List<List<Object>> keys = new ArrayList<>();
      try (w) {
        for (Row r : group) {
          Record k = GenericRecord.create(keySchema);
          List<Object> key = new ArrayList<>();
          for (int i = 0; i < ids.length; i++) {
            Object v = r.values.get(ids[i]);
            k.setField(columns.get(i), v);
            key.add(v);
          }
          w.write(k);
          keys.add(key);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      delta.addDeletes(w.toDeleteFile());
      removed.add(
          r ->
              r.specId == first.specId
                  && r.partition.equals(first.partition)
                  && r.sequence < sequence
                  && keys.stream().anyMatch(k -> matches(r, ids, k)));
    }
    delta.commit();
    for (var p : removed) {
      live.removeIf(p);
    }
    snapshot();
  }

  private static boolean matches(Row r, int[] ids, List<Object> key) {
    for (int i = 0; i < ids.length; i++) {
      if (!Objects.equals(r.values.get(ids[i]), key.get(i))) {
        return false;
      }
    }
    return true;
  }

  private final Map<String, StructLike> partitions = new HashMap<>();

  private StructLike partitionOf(String file) {
    if (partitions.isEmpty() || !partitions.containsKey(file)) {
      for (var task : table.newScan().planFiles()) {
        partitions.put(task.file().location(), task.file().partition());
      }
    }
    return partitions.get(file);
  }

  private String partitionKey(int specId, StructLike partition) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < partition.size(); i++) {
      b.append(partition.get(i, Object.class)).append('/');
    }
    return b.toString();
  }

  private long nextSequence() {
    return table.currentSnapshot() == null ? 1 : table.currentSnapshot().sequenceNumber() + 1;
  }

  /** Records the live rows as the table's current snapshot's. */
  void snapshot() {
    table.refresh();
    bySnapshot.put(table.currentSnapshot().snapshotId(), List.copyOf(live));
  }

  /** Loads {@code rows} into DuckDB table {@code name} with {@code schema}'s columns and types. */
  static void load(Connection duck, String name, Schema schema, List<Row> rows) throws Exception {
    StringBuilder ddl = new StringBuilder("CREATE OR REPLACE TABLE " + name + " (");
    List<Types.NestedField> cols = schema.columns();
    for (int i = 0; i < cols.size(); i++) {
      ddl.append(i > 0 ? ", " : "")
          .append('"')
          .append(cols.get(i).name())
          .append("\" ")
          .append(duckType(cols.get(i).type()));
    }
    try (Statement s = duck.createStatement()) {
      s.execute(ddl.append(')').toString());
    }
    String marks = String.join(", ", java.util.Collections.nCopies(cols.size(), "?"));
    try (PreparedStatement p =
        duck.prepareStatement("INSERT INTO " + name + " VALUES (" + marks + ")")) {
      for (Row r : rows) {
        for (int i = 0; i < cols.size(); i++) {
          p.setObject(i + 1, duckValue(r.values.get(cols.get(i).fieldId()), cols.get(i).type()));
        }
        p.addBatch();
      }
      p.executeBatch();
    }
  }

  private static String duckType(Type t) {
    return switch (t.typeId()) {
      case BOOLEAN -> "BOOLEAN";
      case INTEGER -> "INTEGER";
      case LONG -> "BIGINT";
      case FLOAT -> "REAL";
      case DOUBLE -> "DOUBLE";
      case DECIMAL ->
          "DECIMAL("
              + ((Types.DecimalType) t).precision()
              + ", "
              + ((Types.DecimalType) t).scale()
              + ")";
      case DATE -> "DATE";
      case TIMESTAMP -> "TIMESTAMP";
      case STRING -> "VARCHAR";
      default -> throw new IllegalArgumentException("No DuckDB type for " + t);
    };
  }

  /** A value as written, in the column's current type (after promotions). */
  private static Object duckValue(Object v, Type t) {
    if (v == null) {
      return null;
    }
    return switch (t.typeId()) {
      case LONG -> ((Number) v).longValue();
      case DOUBLE -> v instanceof Float f ? (double) f : ((Number) v).doubleValue();
      case DECIMAL ->
          ((BigDecimal) v).setScale(((Types.DecimalType) t).scale(), RoundingMode.UNNECESSARY);
      case TIMESTAMP ->
          v instanceof OffsetDateTime o
              ? o.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime()
              : (LocalDateTime) v;
      case DATE -> (LocalDate) v;
      default -> v;
    };
  }
}
