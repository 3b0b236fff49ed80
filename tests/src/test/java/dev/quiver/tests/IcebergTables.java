package dev.quiver.tests;

import dev.quiver.iceberg.catalog.FileSystemTables;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * The Iceberg tables the read tests query, written by Iceberg's generic writers through several
 * snapshots: every partition transform (identity, bucket, truncate, month, year in one table across
 * a partition spec change; day and hour in another), position and equality deletes before and after
 * schema evolution (a rename, int to long, float to double, a wider decimal, an added, a dropped
 * and a moved column), and rows re-inserted after an equality delete removed their key.
 */
final class IcebergTables {
  private IcebergTables() {}

  /** The main table: 300 rows through 9 snapshots. */
  static IcebergModel events(String location) {
    return events(location, null);
  }

  /** The main table in {@code location}, reached with {@code config}'s store settings. */
  static IcebergModel events(String location, dev.quiver.binding.settings.SessionConfig config) {
    Schema schema = eventsSchema();
    Table table = FileSystemTables.create(location, schema, eventsSpec(schema), Map.of(), config);
    return fillEvents(table);
  }

  /** The main table created as {@code id} in {@code catalog} (a REST catalog's client). */
  static IcebergModel events(
      org.apache.iceberg.catalog.Catalog catalog, org.apache.iceberg.catalog.TableIdentifier id) {
    Schema schema = eventsSchema();
    return fillEvents(
        catalog.createTable(id, schema, eventsSpec(schema), Map.of("format-version", "2")));
  }

  /** The day and hour table created as {@code id} in {@code catalog}. */
  static IcebergModel times(
      org.apache.iceberg.catalog.Catalog catalog, org.apache.iceberg.catalog.TableIdentifier id) {
    Schema schema = timesSchema();
    return fillTimes(
        catalog.createTable(id, schema, timesSpec(schema), Map.of("format-version", "2")));
  }

  private static Schema eventsSchema() {
    return new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "name", Types.StringType.get()),
        Types.NestedField.optional(3, "category", Types.StringType.get()),
        Types.NestedField.optional(4, "amount", Types.DecimalType.of(9, 2)),
        Types.NestedField.optional(5, "qty", Types.IntegerType.get()),
        Types.NestedField.optional(6, "ratio", Types.FloatType.get()),
        Types.NestedField.optional(7, "d", Types.DateType.get()),
        Types.NestedField.optional(8, "extra", Types.IntegerType.get()));
  }

  private static PartitionSpec eventsSpec(Schema schema) {
    return PartitionSpec.builderFor(schema)
        .identity("category")
        .bucket("id", 4)
        .truncate("name", 2)
        .month("d")
        .build();
  }

  private static IcebergModel fillEvents(Table table) {
    IcebergModel m = new IcebergModel(table);
    m.append(rows(1, 120, false));
    m.append(rows(121, 240, false));
    m.deletePositions(r -> id(r) % 7 == 0 && id(r) <= 120);
    m.deleteEqual(List.of("id"), r -> id(r) % 11 == 0);
    table
        .updateSchema()
        .updateColumn("qty", Types.LongType.get())
        .renameColumn("qty", "quantity")
        .updateColumn("ratio", Types.DoubleType.get())
        .updateColumn("amount", Types.DecimalType.of(12, 2))
        .addColumn("note", Types.StringType.get())
        .deleteColumn("extra")
        .moveFirst("name")
        .commit();
    table
        .updateSpec()
        .removeField("category")
        .removeField("id_bucket")
        .removeField("name_trunc")
        .removeField("d_month")
        .addField(Expressions.year("d"))
        .commit();
    List<Map<String, Object>> later = rows(241, 300, true);
    for (long again : new long[] {11, 22, 33}) {
      Map<String, Object> r = row(again, true);
      r.put("note", "again");
      later.add(r);
    }
    m.append(later);
    m.deleteEqual(List.of("name"), r -> "bx1".equals(r.values.get(2)));
    m.deletePositions(r -> id(r) % 9 == 0 && id(r) > 240);
    return m;
  }

  /** Day and hour partitions of timestamps, with a position delete. */
  static IcebergModel times(String location) {
    Schema schema = timesSchema();
    return fillTimes(FileSystemTables.create(location, schema, timesSpec(schema), Map.of(), null));
  }

  /** Three rows of the day and hour table's schema, unpartitioned: one data file. */
  static IcebergModel few(
      org.apache.iceberg.catalog.Catalog catalog, org.apache.iceberg.catalog.TableIdentifier id) {
    IcebergModel m =
        new IcebergModel(
            catalog.createTable(
                id, timesSchema(), PartitionSpec.unpartitioned(), Map.of("format-version", "2")));
    m.append(
        List.of(
            Map.of("id", 1L, "flag", true),
            Map.of("id", 2L, "flag", false),
            Map.of("id", 3L, "flag", true)));
    return m;
  }

  private static Schema timesSchema() {
    return new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
        Types.NestedField.optional(3, "tstz", Types.TimestampType.withZone()),
        Types.NestedField.optional(4, "flag", Types.BooleanType.get()));
  }

  private static PartitionSpec timesSpec(Schema schema) {
    return PartitionSpec.builderFor(schema).day("ts").hour("tstz").identity("flag").build();
  }

  private static IcebergModel fillTimes(Table table) {
    IcebergModel m = new IcebergModel(table);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long id = 1; id <= 100; id++) {
      Map<String, Object> r = new HashMap<>();
      r.put("id", id);
      LocalDateTime t = LocalDateTime.of(2024, 2, 27, 0, 0).plusMinutes(id * 97);
      r.put("ts", id % 10 == 0 ? null : t);
      r.put("tstz", OffsetDateTime.of(t.plusSeconds(id), ZoneOffset.UTC));
      r.put("flag", id % 3 == 0);
      rows.add(r);
    }
    m.append(rows);
    m.deletePositions(r -> id(r) % 6 == 0);
    return m;
  }

  static long id(IcebergModel.Row r) {
    return (Long) r.values.get(1);
  }

  private static List<Map<String, Object>> rows(long from, long to, boolean evolved) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (long id = from; id <= to; id++) {
      out.add(row(id, evolved));
    }
    return out;
  }

  private static Map<String, Object> row(long id, boolean evolved) {
    Map<String, Object> r = new HashMap<>();
    r.put("id", id);
    r.put("name", (char) ('a' + id % 8) + "x" + id % 5);
    r.put("category", id % 17 == 0 ? null : "c" + id % 3);
    r.put("amount", BigDecimal.valueOf(id * 125, 2));
    Integer qty = id % 13 == 0 ? null : (int) (id % 10);
    float ratio = id / 7f;
    if (evolved) {
      r.put("quantity", qty == null ? null : (long) qty);
      r.put("ratio", (double) ratio);
      r.put("note", id % 4 == 0 ? null : "n" + id);
    } else {
      r.put("qty", qty);
      r.put("ratio", ratio);
      r.put("extra", (int) id);
    }
    r.put("d", LocalDate.of(2023, 11, 1).plusDays(id * 3));
    return r;
  }
}
