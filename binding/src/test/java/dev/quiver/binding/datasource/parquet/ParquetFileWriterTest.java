package dev.quiver.binding.datasource.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.DataSourceException;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Files written by {@link ParquetFileWriter} read back by DuckDB: every flat type the engine
 * produces (and the wider Arrow types files bring in), with nulls, empty strings and extreme
 * values, over several row groups and many pages, dictionary-encoded and plain, with each codec,
 * equal value for value to what was written; and the footer as DuckDB reports it (physical and
 * logical types, field ids, per-row-group statistics, codec, encodings).
 */
@Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
class ParquetFileWriterTest {
  private static final int ROWS = 10_000;
  private static final int GROUP_ROWS = 3_000;

  @TempDir Path tmp;
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** Writes row {@code r}'s value into {@code v}. */
  private interface Setter {
    void set(FieldVector v, int r, Object value);
  }

  /** Reads a column of DuckDB's result as the Java value the test generated. */
  private interface Getter {
    Object get(ResultSet rs, int column) throws SQLException;
  }

  /** A test column: its Arrow type, its value at each row (null for NULL), and how to read it. */
  private record Col(
      String name, ArrowType type, IntFunction<Object> value, Setter set, Getter get) {}

  private static final BigInteger MAX_38 = BigInteger.TEN.pow(38).subtract(BigInteger.ONE);

  private static boolean isNull(int r) {
    return r % 7 == 6;
  }

  private static List<Col> columns() {
    List<Col> cols = new ArrayList<>();
    cols.add(
        new Col(
            "id",
            new ArrowType.Int(32, true),
            r -> r,
            (v, r, x) -> ((IntVector) v).setSafe(r, (Integer) x),
            (rs, c) -> rs.getInt(c)));
    cols.add(
        new Col(
            "b",
            ArrowType.Bool.INSTANCE,
            r -> isNull(r) ? null : r % 3 == 0,
            (v, r, x) -> ((BitVector) v).setSafe(r, (Boolean) x ? 1 : 0),
            (rs, c) -> rs.getObject(c) == null ? null : rs.getBoolean(c)));
    cols.add(
        new Col(
            "i8",
            new ArrowType.Int(8, true),
            r -> isNull(r) ? null : r == 1 ? Byte.MIN_VALUE : r == 2 ? Byte.MAX_VALUE : (byte) r,
            (v, r, x) -> ((TinyIntVector) v).setSafe(r, (Byte) x),
            (rs, c) -> rs.getObject(c) == null ? null : rs.getByte(c)));
    cols.add(
        new Col(
            "i16",
            new ArrowType.Int(16, true),
            r ->
                isNull(r)
                    ? null
                    : r == 1 ? Short.MIN_VALUE : r == 2 ? Short.MAX_VALUE : (short) (r * 3),
            (v, r, x) -> ((SmallIntVector) v).setSafe(r, (Short) x),
            (rs, c) -> rs.getObject(c) == null ? null : rs.getShort(c)));
    cols.add(
        new Col(
            "i32",
            new ArrowType.Int(32, true),
            r ->
                isNull(r)
                    ? null
                    : r == 1 ? Integer.MIN_VALUE : r == 2 ? Integer.MAX_VALUE : r * 7919,
            (v, r, x) -> ((IntVector) v).setSafe(r, (Integer) x),
            (rs, c) -> rs.getObject(c) == null ? null : rs.getInt(c)));
    cols.add(
        new Col(
            "i64",
            new ArrowType.Int(64, true),
            r ->
                isNull(r)
                    ? null
                    : r == 1 ? Long.MIN_VALUE : r == 2 ? Long.MAX_VALUE : r * 1_000_000_007L,
            (v, r, x) -> ((BigIntVector) v).setSafe(r, (Long) x),
            (rs, c) -> rs.getObject(c) == null ? null : rs.getLong(c)));
    cols.add(
        new Col(
            "u32",
            new ArrowType.Int(32, false),
            r -> isNull(r) ? null : r == 2 ? 4_294_967_295L : 4_000_000_000L - r,
            (v, r, x) -> ((UInt4Vector) v).setSafe(r, (int) (long) (Long) x),
            (rs, c) -> rs.getObject(c) == null ? null : rs.getLong(c)));
    cols.add(
        new Col(
            "f32",
            new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
            r ->
                isNull(r)
                    ? null
                    : r == 1
                        ? Float.NEGATIVE_INFINITY
                        : r == 2 ? Float.MAX_VALUE : r == 3 ? -0.0f : r / 8f,
            (v, r, x) -> ((Float4Vector) v).setSafe(r, (Float) x),
            (rs, c) -> rs.getObject(c) == null ? null : rs.getFloat(c)));
    cols.add(
        new Col(
            "f64",
            new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
            r ->
                isNull(r)
                    ? null
                    : r == 1 ? -Double.MAX_VALUE : r == 2 ? Double.MIN_VALUE : r * 0.001,
            (v, r, x) -> ((Float8Vector) v).setSafe(r, (Double) x),
            (rs, c) -> rs.getObject(c) == null ? null : rs.getDouble(c)));
    cols.add(decimal("d5", 5, 2, r -> r == 1 ? -99_999L : r == 2 ? 99_999L : r % 1000 - 500L));
    cols.add(
        decimal(
            "d15",
            15,
            2,
            r -> r == 1 ? -999_999_999_999_999L : r == 2 ? 999_999_999_999_999L : r * 12_345L));
    cols.add(
        new Col(
            "d38",
            new ArrowType.Decimal(38, 10, 128),
            r ->
                isNull(r)
                    ? null
                    : new BigDecimal(
                        r == 1
                            ? MAX_38.negate()
                            : r == 2 ? MAX_38 : BigInteger.valueOf(r).pow(5).negate(),
                        10),
            (v, r, x) -> ((DecimalVector) v).setSafe(r, (BigDecimal) x),
            (rs, c) -> rs.getBigDecimal(c)));
    cols.add(
        new Col(
            "d30_256",
            new ArrowType.Decimal(30, 3, 256),
            r ->
                isNull(r)
                    ? null
                    : new BigDecimal("-123456789012345678901.234").add(BigDecimal.valueOf(r)),
            (v, r, x) -> ((Decimal256Vector) v).setSafe(r, (BigDecimal) x),
            (rs, c) -> rs.getBigDecimal(c)));
    cols.add(
        new Col(
            "s",
            ArrowType.Utf8.INSTANCE,
            r -> isNull(r) ? null : r == 4 ? "" : r == 5 ? "é漢🙂\u0000x" : "v" + r,
            (v, r, x) ->
                ((VarCharVector) v).setSafe(r, ((String) x).getBytes(StandardCharsets.UTF_8)),
            (rs, c) -> rs.getString(c)));
    cols.add(
        new Col(
            "dict",
            ArrowType.Utf8.INSTANCE,
            r -> isNull(r) ? null : "key-" + (r % 10),
            (v, r, x) ->
                ((VarCharVector) v).setSafe(r, ((String) x).getBytes(StandardCharsets.UTF_8)),
            (rs, c) -> rs.getString(c)));
    cols.add(
        new Col(
            "large",
            ArrowType.LargeUtf8.INSTANCE,
            r -> isNull(r) ? null : "unique value number " + r + " ".repeat(r % 50) + "!",
            (v, r, x) ->
                ((LargeVarCharVector) v).setSafe(r, ((String) x).getBytes(StandardCharsets.UTF_8)),
            (rs, c) -> rs.getString(c)));
    cols.add(
        new Col(
            "bin",
            ArrowType.Binary.INSTANCE,
            r ->
                isNull(r)
                    ? null
                    : r == 4 ? new byte[0] : new byte[] {(byte) r, (byte) (r >> 8), 0, -1},
            (v, r, x) -> ((VarBinaryVector) v).setSafe(r, (byte[]) x),
            (rs, c) -> rs.getBytes(c)));
    cols.add(
        new Col(
            "dt",
            new ArrowType.Date(DateUnit.DAY),
            r ->
                isNull(r)
                    ? null
                    : LocalDate.ofEpochDay(r == 1 ? -719_162 : r == 2 ? 2_932_896 : r - 10_000),
            (v, r, x) -> ((DateDayVector) v).setSafe(r, (int) ((LocalDate) x).toEpochDay()),
            (rs, c) -> rs.getObject(c, LocalDate.class)));
    cols.add(
        new Col(
            "tm",
            new ArrowType.Time(TimeUnit.MICROSECOND, 64),
            r ->
                isNull(r) ? null : LocalTime.ofNanoOfDay((r * 1_000_003L % 86_400_000_000L) * 1000),
            (v, r, x) -> ((TimeMicroVector) v).setSafe(r, ((LocalTime) x).toNanoOfDay() / 1000),
            (rs, c) -> rs.getString(c) == null ? null : LocalTime.parse(rs.getString(c))));
    cols.add(
        new Col(
            "ts",
            new ArrowType.Timestamp(TimeUnit.MICROSECOND, null),
            r ->
                isNull(r)
                    ? null
                    : LocalDateTime.of(1900, 1, 1, 0, 0).plusNanos(r * 3_600_000_123_000L),
            (v, r, x) -> ((TimeStampMicroVector) v).setSafe(r, micros((LocalDateTime) x)),
            (rs, c) -> rs.getObject(c, LocalDateTime.class)));
    cols.add(
        new Col(
            "ts_utc",
            new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"),
            r ->
                isNull(r)
                    ? null
                    : LocalDateTime.of(2020, 2, 29, 12, 0).plusNanos(r * 61_000_001_000L),
            (v, r, x) -> ((TimeStampMicroTZVector) v).setSafe(r, micros((LocalDateTime) x)),
            (rs, c) ->
                rs.getObject(c) == null
                    ? null
                    : rs.getObject(c, OffsetDateTime.class)
                        .withOffsetSameInstant(ZoneOffset.UTC)
                        .toLocalDateTime()));
    cols.add(
        new Col(
            "ts_ms",
            new ArrowType.Timestamp(TimeUnit.MILLISECOND, null),
            r ->
                isNull(r) ? null : LocalDateTime.of(1969, 12, 31, 23, 59).plusNanos(r * 1_000_000L),
            (v, r, x) -> ((TimeStampMilliVector) v).setSafe(r, micros((LocalDateTime) x) / 1000),
            (rs, c) -> rs.getObject(c, LocalDateTime.class)));
    cols.add(
        new Col(
            "ts_ns",
            new ArrowType.Timestamp(TimeUnit.NANOSECOND, null),
            r -> isNull(r) ? null : LocalDateTime.of(2024, 1, 1, 0, 0).plusNanos(r * 1_000_001L),
            (v, r, x) ->
                ((TimeStampNanoVector) v)
                    .set(
                        r, micros((LocalDateTime) x) * 1000 + ((LocalDateTime) x).getNano() % 1000),
            (rs, c) -> rs.getObject(c, LocalDateTime.class)));
    return cols;
  }

  private static Col decimal(String name, int precision, int scale, IntFunction<Long> unscaled) {
    return new Col(
        name,
        new ArrowType.Decimal(precision, scale, 128),
        r -> isNull(r) ? null : BigDecimal.valueOf(unscaled.apply(r), scale),
        (v, r, x) -> ((DecimalVector) v).setSafe(r, (BigDecimal) x),
        (rs, c) -> rs.getBigDecimal(c));
  }

  private static long micros(LocalDateTime t) {
    return Math.addExact(
        Math.multiplyExact(t.toEpochSecond(ZoneOffset.UTC), 1_000_000L), t.getNano() / 1000);
  }

  private static Schema schema(List<Col> cols) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < cols.size(); i++) {
      Col c = cols.get(i);
      fields.add(
          new Field(
              c.name,
              new FieldType(
                  !c.name.equals("id"), c.type, null, Map.of("PARQUET:field_id", "" + (100 + i))),
              null));
    }
    return new Schema(fields);
  }

  /** Writes {@link #ROWS} rows in batches of 4,000 with {@code options}; returns the file. */
  private Path write(List<Col> cols, ParquetWriteOptions options, String name) throws IOException {
    Path file = tmp.resolve(name);
    Schema schema = schema(cols);
    try (OutputStream out = Files.newOutputStream(file);
        VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
      ParquetFileWriter writer = new ParquetFileWriter(out, schema, options);
      for (int start = 0; start < ROWS; start += 4_000) {
        int n = Math.min(4_000, ROWS - start);
        for (int c = 0; c < cols.size(); c++) {
          FieldVector v = batch.getVector(c);
          v.setInitialCapacity(n);
          v.allocateNew();
          for (int i = 0; i < n; i++) {
            Object x = cols.get(c).value.apply(start + i);
            if (x == null) {
              v.setNull(i);
            } else {
              cols.get(c).set.set(v, i, x);
            }
          }
          v.setValueCount(n);
        }
        batch.setRowCount(n);
        writer.write(batch);
      }
      writer.finish();
      assertThat(writer.rows()).isEqualTo(ROWS);
    }
    return file;
  }

  private static List<List<Object>> duckdbRows(Path file, List<Col> cols) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM read_parquet('" + file + "') ORDER BY id")) {
      List<List<Object>> rows = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 0; i < cols.size(); i++) {
          row.add(cols.get(i).get.get(rs, i + 1));
        }
        rows.add(row);
      }
      return rows;
    }
  }

  private static List<Map<String, Object>> query(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<Map<String, Object>> rows = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        Map<String, Object> row = new HashMap<>();
        for (int i = 1; i <= n; i++) {
          row.put(rs.getMetaData().getColumnName(i), rs.getObject(i));
        }
        rows.add(row);
      }
      return rows;
    }
  }

  private static void assertSameRows(List<List<Object>> actual, List<Col> cols) {
    assertThat(actual).hasSize(ROWS);
    for (int r = 0; r < ROWS; r++) {
      for (int c = 0; c < cols.size(); c++) {
        Object want = cols.get(c).value.apply(r);
        Object got = actual.get(r).get(c);
        boolean same =
            want instanceof byte[] w ? Arrays.equals(w, (byte[]) got) : Objects.equals(want, got);
        assertThat(same)
            .as("row %d column %s: wrote %s, DuckDB read %s", r, cols.get(c).name, want, got)
            .isTrue();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(ParquetCodec.class)
  void everyValueReadsBackThroughDuckDbWithEachCodec(ParquetCodec codec) throws Exception {
    List<Col> cols = columns();
    Path file =
        write(
            cols,
            ParquetWriteOptions.DEFAULT
                .withCodec(codec)
                .withRowGroupRows(GROUP_ROWS)
                .withPageBytes(8 * 1024),
            "all.parquet");
    assertSameRows(duckdbRows(file, cols), cols);
    List<Map<String, Object>> chunks =
        query("SELECT DISTINCT compression FROM parquet_metadata('" + file + "')");
    assertThat(chunks).extracting(m -> m.get("compression")).containsExactly(codec.name());
  }

  @Test
  void plainEncodingWithoutDictionaryReadsBack() throws Exception {
    List<Col> cols = columns();
    Path file = write(cols, ParquetWriteOptions.DEFAULT.withDictionary(false), "plain.parquet");
    assertSameRows(duckdbRows(file, cols), cols);
    assertThat(
            query(
                "SELECT count(*) AS n FROM parquet_metadata('"
                    + file
                    + "') WHERE encodings LIKE '%DICTIONARY%'"))
        .extracting(m -> ((Number) m.get("n")).longValue())
        .containsExactly(0L);
  }

  @Test
  void footerHasLogicalTypesFieldIdsAndRowGroupStatistics() throws Exception {
    List<Col> cols = columns();
    Path file =
        write(
            cols,
            ParquetWriteOptions.DEFAULT.withRowGroupRows(GROUP_ROWS).withPageBytes(8 * 1024),
            "meta.parquet");
    Map<String, Map<String, Object>> schema = new HashMap<>();
    for (Map<String, Object> row : query("SELECT * FROM parquet_schema('" + file + "')")) {
      schema.put((String) row.get("name"), row);
    }
    assertThat(schema.get("id").get("repetition_type")).isEqualTo("REQUIRED");
    assertThat(schema.get("i32").get("repetition_type")).isEqualTo("OPTIONAL");
    for (int i = 0; i < cols.size(); i++) {
      assertThat(((Number) schema.get(cols.get(i).name).get("field_id")).intValue())
          .as(cols.get(i).name)
          .isEqualTo(100 + i);
    }
    assertThat(schema.get("d5").get("type")).isEqualTo("INT32");
    assertThat(schema.get("d15").get("type")).isEqualTo("INT64");
    assertThat(schema.get("d38").get("type")).isEqualTo("FIXED_LEN_BYTE_ARRAY");
    assertThat(String.valueOf(schema.get("d38").get("type_length"))).isEqualTo("16");
    assertThat(String.valueOf(schema.get("d30_256").get("type_length"))).isEqualTo("13");
    Map<String, String> duckTypes = new HashMap<>();
    schema.forEach((k, v) -> duckTypes.put(k, String.valueOf(v.get("duckdb_type"))));
    assertThat(duckTypes)
        .containsEntry("i8", "TINYINT")
        .containsEntry("i16", "SMALLINT")
        .containsEntry("u32", "UINTEGER")
        .containsEntry("d5", "DECIMAL(5,2)")
        .containsEntry("d15", "DECIMAL(15,2)")
        .containsEntry("d38", "DECIMAL(38,10)")
        .containsEntry("s", "VARCHAR")
        .containsEntry("large", "VARCHAR")
        .containsEntry("bin", "BLOB")
        .containsEntry("dt", "DATE")
        .containsEntry("tm", "TIME")
        .containsEntry("ts", "TIMESTAMP")
        .containsEntry("ts_utc", "TIMESTAMP WITH TIME ZONE")
        .containsEntry("ts_ns", "TIMESTAMP_NS");
    assertThat(String.valueOf(schema.get("ts").get("logical_type")))
        .contains("isAdjustedToUTC=0")
        .contains("MICROS");
    assertThat(String.valueOf(schema.get("ts_utc").get("logical_type")))
        .contains("isAdjustedToUTC=1");

    // Each row group's statistics bound exactly the values written to it.
    List<Map<String, Object>> stats =
        query(
            "SELECT row_group_id, row_group_num_rows, path_in_schema, stats_min_value,"
                + " stats_max_value, stats_null_count, encodings, dictionary_page_offset"
                + " FROM parquet_metadata('"
                + file
                + "') ORDER BY row_group_id");
    int groups = (ROWS + GROUP_ROWS - 1) / GROUP_ROWS;
    assertThat(stats.stream().map(m -> m.get("row_group_id")).distinct()).hasSize(groups);
    for (Map<String, Object> m : stats) {
      int group = ((Number) m.get("row_group_id")).intValue();
      int from = group * GROUP_ROWS;
      int to = Math.min(ROWS, from + GROUP_ROWS);
      assertThat(((Number) m.get("row_group_num_rows")).intValue()).isEqualTo(to - from);
      String column = (String) m.get("path_in_schema");
      long nulls = 0;
      for (int r = from; r < to; r++) {
        nulls += column.equals("id") || !isNull(r) ? 0 : 1;
      }
      assertThat(((Number) m.get("stats_null_count")).longValue()).as(column).isEqualTo(nulls);
      if (column.equals("i64") || column.equals("id") || column.equals("d15")) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        Col col = cols.stream().filter(c -> c.name.equals(column)).findFirst().orElseThrow();
        for (int r = from; r < to; r++) {
          Object x = col.value.apply(r);
          if (x != null) {
            long v =
                x instanceof BigDecimal d
                    ? d.unscaledValue().longValueExact()
                    : ((Number) x).longValue();
            min = Math.min(min, v);
            max = Math.max(max, v);
          }
        }
        String scale = column.equals("d15") ? "2" : "0";
        assertThat(new BigDecimal((String) m.get("stats_min_value")))
            .as(column)
            .isEqualByComparingTo(new BigDecimal(BigInteger.valueOf(min), Integer.parseInt(scale)));
        assertThat(new BigDecimal((String) m.get("stats_max_value")))
            .as(column)
            .isEqualByComparingTo(new BigDecimal(BigInteger.valueOf(max), Integer.parseInt(scale)));
      }
      if (column.equals("s") && group == 0) {
        // Strings order byte-wise: "" is the least, the multi-byte string the greatest.
        assertThat(m.get("stats_min_value")).isEqualTo("");
      }
      if (column.equals("large")) {
        // Unique values: a dictionary would not pay, so the chunk fell back to plain at once.
        assertThat((String) m.get("encodings")).doesNotContain("DICTIONARY");
        assertThat(m.get("dictionary_page_offset")).isNull();
      }
      if (column.equals("dict")) {
        assertThat((String) m.get("encodings")).contains("RLE_DICTIONARY");
        assertThat(m.get("stats_min_value")).isEqualTo("key-0");
        assertThat(m.get("stats_max_value")).isEqualTo("key-9");
      }
    }
  }

  @Test
  void nanLeavesTheBoundsOutSoNoReaderPrunesIt() throws Exception {
    List<Col> cols =
        List.of(
            columns().get(0),
            new Col(
                "x",
                new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
                r -> r == 5 ? Double.NaN : (double) r,
                (v, r, x) -> ((Float8Vector) v).setSafe(r, (Double) x),
                (rs, c) -> rs.getDouble(c)));
    Path file = write(cols, ParquetWriteOptions.DEFAULT, "nan.parquet");
    assertSameRows(duckdbRows(file, cols), cols);
    List<Map<String, Object>> stats =
        query(
            "SELECT stats_min_value, stats_max_value FROM parquet_metadata('"
                + file
                + "') WHERE path_in_schema = 'x'");
    assertThat(stats).hasSize(1);
    assertThat(stats.get(0).get("stats_min_value")).isNull();
    assertThat(stats.get(0).get("stats_max_value")).isNull();
  }

  @Test
  void anEmptyFileHasNoRowGroupAndReadsAsNoRows() throws Exception {
    Path file = tmp.resolve("empty.parquet");
    Schema schema = schema(columns());
    try (OutputStream out = Files.newOutputStream(file)) {
      new ParquetFileWriter(out, schema, ParquetWriteOptions.DEFAULT).finish();
    }
    assertThat(query("SELECT count(*) AS n FROM read_parquet('" + file + "')"))
        .extracting(m -> ((Number) m.get("n")).longValue())
        .containsExactly(0L);
    assertThat(query("SELECT count(*) AS n FROM parquet_schema('" + file + "')"))
        .extracting(m -> ((Number) m.get("n")).intValue())
        .containsExactly(columns().size() + 1);
  }

  @Test
  void aTypeParquetCannotHoldIsATypedErrorNamingTheColumn() {
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("ok", new ArrowType.Int(32, true)),
                Field.nullable("span", new ArrowType.Interval(IntervalUnit.DAY_TIME))));
    assertThatThrownBy(
            () ->
                new ParquetFileWriter(
                    OutputStream.nullOutputStream(), schema, ParquetWriteOptions.DEFAULT))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining("'span'")
        .hasMessageContaining("Interval");
  }

  @Test
  void nullsInANotNullColumnAreRefusedNotInvented() throws Exception {
    Schema schema = new Schema(List.of(Field.notNullable("k", new ArrowType.Int(32, true))));
    try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
      IntVector v = (IntVector) batch.getVector(0);
      v.allocateNew(2);
      v.set(0, 1);
      v.setNull(1);
      v.setValueCount(2);
      batch.setRowCount(2);
      ParquetFileWriter writer =
          new ParquetFileWriter(
              OutputStream.nullOutputStream(), schema, ParquetWriteOptions.DEFAULT);
      assertThatThrownBy(() -> writer.write(batch))
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining("'k'")
          .hasMessageContaining("NOT NULL");
    }
  }
}
