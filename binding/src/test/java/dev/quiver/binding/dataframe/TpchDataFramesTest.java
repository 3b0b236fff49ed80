package dev.quiver.binding.dataframe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** Runs the DataFrame TPC-H queries on small generated tables and compares them with the SQL. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TpchDataFramesTest {
  private static final ArrowType KEY = new ArrowType.Int(64, true);
  private static final ArrowType INT = new ArrowType.Int(32, true);
  private static final ArrowType MONEY = new ArrowType.Decimal(15, 2, 128);
  private static final ArrowType TEXT = ArrowType.Utf8.INSTANCE;
  private static final ArrowType DAY = new ArrowType.Date(DateUnit.DAY);
  private static final String[] REGIONS = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
  private static final String[] SEGMENTS = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY"};

  private final BufferAllocator allocator = new RootAllocator();
  private SessionContext ctx;

  @BeforeAll
  void registerTables() {
    ctx = new SessionContext();
    Random random = new Random(42);
    register(
        "region",
        schema("r_regionkey", KEY, "r_name", TEXT),
        rows(REGIONS.length, i -> new Object[] {(long) i, REGIONS[i]}));
    register(
        "nation",
        schema("n_nationkey", KEY, "n_name", TEXT, "n_regionkey", KEY),
        rows(10, i -> new Object[] {(long) i, "NATION" + i, (long) (i % REGIONS.length)}));
    register(
        "supplier",
        schema("s_suppkey", KEY, "s_name", TEXT, "s_nationkey", KEY),
        rows(20, i -> new Object[] {(long) i, "Supplier#" + i, (long) (i % 10)}));
    register(
        "customer",
        schema(
            "c_custkey",
            KEY,
            "c_name",
            TEXT,
            "c_address",
            TEXT,
            "c_nationkey",
            KEY,
            "c_phone",
            TEXT,
            "c_acctbal",
            MONEY,
            "c_mktsegment",
            TEXT,
            "c_comment",
            TEXT),
        rows(
            30,
            i ->
                new Object[] {
                  (long) i,
                  "Customer#" + i,
                  "Street " + i,
                  (long) random.nextInt(10),
                  "10-" + (100 + i),
                  money(random, 10_000),
                  SEGMENTS[random.nextInt(SEGMENTS.length)],
                  i % 3 == 0 ? null : "comment " + i
                }));
    register(
        "orders",
        schema("o_orderkey", KEY, "o_custkey", KEY, "o_orderdate", DAY, "o_shippriority", INT),
        rows(
            150,
            i ->
                new Object[] {
                  (long) i,
                  (long) random.nextInt(30),
                  LocalDate.of(1993, 1, 1).plusDays(random.nextInt(900)),
                  0
                }));
    register(
        "lineitem",
        schema(
            "l_orderkey",
            KEY,
            "l_suppkey",
            KEY,
            "l_quantity",
            MONEY,
            "l_extendedprice",
            MONEY,
            "l_discount",
            MONEY,
            "l_tax",
            MONEY,
            "l_returnflag",
            TEXT,
            "l_linestatus",
            TEXT,
            "l_shipdate",
            DAY),
        rows(
            2000,
            i -> {
              LocalDate ship = LocalDate.of(1993, 1, 1).plusDays(random.nextInt(2150));
              return new Object[] {
                (long) random.nextInt(150),
                (long) random.nextInt(20),
                BigDecimal.valueOf(1 + random.nextInt(50)).setScale(2),
                money(random, 100_000),
                BigDecimal.valueOf(random.nextInt(11), 2),
                BigDecimal.valueOf(random.nextInt(9), 2),
                new String[] {"A", "N", "R"}[random.nextInt(3)],
                ship.isAfter(LocalDate.of(1995, 6, 17)) ? "O" : "F",
                ship
              };
            }));
  }

  @AfterAll
  void close() {
    ctx.close();
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  @Test
  void q1MatchesSql() {
    assertSameRows(TpchDataFrames.q1(ctx), TpchDataFrames.Q1_SQL, 4);
  }

  @Test
  void q3MatchesSql() {
    assertSameRows(TpchDataFrames.q3(ctx), TpchDataFrames.Q3_SQL, 10);
  }

  @Test
  void q5MatchesSql() {
    assertSameRows(TpchDataFrames.q5(ctx), TpchDataFrames.Q5_SQL, 2);
  }

  @Test
  void q6MatchesSql() {
    assertSameRows(TpchDataFrames.q6(ctx), TpchDataFrames.Q6_SQL, 1);
  }

  @Test
  void q10MatchesSql() {
    assertSameRows(TpchDataFrames.q10(ctx), TpchDataFrames.Q10_SQL, 3);
  }

  /** Same column names and the same rows in the same order, with at least {@code minRows} rows. */
  private void assertSameRows(DataFrame df, String sql, int minRows) {
    List<List<Object>> expected = rowsOf(ctx.sql(sql));
    List<List<Object>> actual = rowsOf(df);
    assertThat(df.schema().getFields().stream().map(Field::getName).toList())
        .isEqualTo(ctx.sql(sql).schema().getFields().stream().map(Field::getName).toList());
    assertThat(expected).hasSizeGreaterThanOrEqualTo(minRows);
    assertThat(actual).isEqualTo(expected);
  }

  private static List<List<Object>> rowsOf(DataFrame df) {
    List<List<Object>> rows = new ArrayList<>();
    List<VectorSchemaRoot> batches = df.collect();
    try {
      for (VectorSchemaRoot batch : batches) {
        for (int r = 0; r < batch.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : batch.getFieldVectors()) {
            Object o = v.getObject(r);
            // Compare decimals by value, text by content.
            row.add(
                o instanceof BigDecimal d
                    ? d.stripTrailingZeros()
                    : o == null ? null : o.toString());
          }
          rows.add(row);
        }
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    return rows;
  }

  private static BigDecimal money(Random random, int max) {
    return BigDecimal.valueOf(random.nextInt(max * 100), 2);
  }

  private static Schema schema(Object... namesAndTypes) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      fields.add(Field.nullable((String) namesAndTypes[i], (ArrowType) namesAndTypes[i + 1]));
    }
    return new Schema(fields);
  }

  private static List<Object[]> rows(int n, Function<Integer, Object[]> row) {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(row.apply(i));
    }
    return rows;
  }

  /** Registers {@code rows} as a two-batch memory table (the session copies them). */
  private void register(String name, Schema schema, List<Object[]> rows) {
    int half = rows.size() / 2;
    try (VectorSchemaRoot a = batch(schema, rows.subList(0, half));
        VectorSchemaRoot b = batch(schema, rows.subList(half, rows.size()))) {
      ctx.registerRecordBatches(name, schema, List.of(a, b));
    }
  }

  private VectorSchemaRoot batch(Schema schema, List<Object[]> rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    for (int c = 0; c < schema.getFields().size(); c++) {
      FieldVector v = root.getVector(c);
      for (int r = 0; r < rows.size(); r++) {
        Object o = rows.get(r)[c];
        if (o == null) {
          v.setNull(r);
        } else if (v instanceof BigIntVector x) {
          x.setSafe(r, (Long) o);
        } else if (v instanceof IntVector x) {
          x.setSafe(r, (Integer) o);
        } else if (v instanceof DecimalVector x) {
          x.setSafe(r, (BigDecimal) o);
        } else if (v instanceof VarCharVector x) {
          x.setSafe(r, ((String) o).getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof DateDayVector x) {
          x.setSafe(r, (int) ((LocalDate) o).toEpochDay());
        } else {
          throw new IllegalArgumentException("unsupported test column " + v.getField());
        }
      }
    }
    root.setRowCount(rows.size());
    return root;
  }
}
