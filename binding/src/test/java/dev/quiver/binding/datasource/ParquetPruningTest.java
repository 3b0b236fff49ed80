package dev.quiver.binding.datasource;

import static dev.quiver.binding.datasource.ScanTestSupport.readAll;
import static dev.quiver.binding.datasource.ScanTestSupport.readerOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.expr.CastExpr;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.ComparisonExpr;
import dev.quiver.binding.physical.expr.ComparisonExpr.Op;
import dev.quiver.binding.physical.expr.InListExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.LogicalExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.settings.SessionConfig;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ParquetPruningTest {
  private static final int FILES = 8;
  private static final int ROWS_PER_FILE = 100;
  private static final LocalDate BASE = LocalDate.of(1995, 1, 1);
  private static final ArrowType BIGINT = new ArrowType.Int(64, true);
  private static final ArrowType DATE = new ArrowType.Date(DateUnit.DAY);
  private static final ArrowType DEC = new ArrowType.Decimal(12, 2, 128);
  private static final ArrowType DOUBLE =
      new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              field("id", BIGINT),
              field("day", DATE),
              field("amount", DEC),
              field("name", ArrowType.Utf8.INSTANCE),
              field("sparse", BIGINT),
              field("x", DOUBLE)));

  @TempDir Path tmp;
  private RootAllocator root;
  private BufferAllocator allocator;
  private ParquetTable table;

  private static Field field(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  /**
   * Row {@code id}: day = BASE + id, amount = id * 1.25, name = name-%05d, sparse = id every 10th.
   */
  private static List<Object> row(long id) {
    boolean sparseNull = id % 10 != 0 || id / ROWS_PER_FILE == 5;
    List<Object> r = new ArrayList<>();
    r.add(id);
    r.add(BASE.plusDays(id));
    r.add(BigDecimal.valueOf(id * 125, 2));
    r.add(String.format("name-%05d", id));
    r.add(sparseNull ? null : id);
    r.add(id % 3 == 0 ? Double.NaN : (double) id);
    return r;
  }

  @BeforeEach
  void setUp() throws IOException {
    root = new RootAllocator();
    allocator = root.newChildAllocator("query", 0, Long.MAX_VALUE);
    Path dir = tmp.resolve("t");
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      for (int f = 0; f < FILES; f++) {
        VectorSchemaRoot b = VectorSchemaRoot.create(SCHEMA, allocator);
        batches.add(b);
        b.allocateNew();
        for (int i = 0; i < ROWS_PER_FILE; i++) {
          List<Object> r = row((long) f * ROWS_PER_FILE + i);
          ((BigIntVector) b.getVector(0)).setSafe(i, (Long) r.get(0));
          ((DateDayVector) b.getVector(1)).setSafe(i, (int) ((LocalDate) r.get(1)).toEpochDay());
          ((DecimalVector) b.getVector(2)).setSafe(i, (BigDecimal) r.get(2));
          ((VarCharVector) b.getVector(3))
              .setSafe(i, ((String) r.get(3)).getBytes(StandardCharsets.UTF_8));
          if (r.get(4) == null) {
            b.getVector(4).setNull(i);
          } else {
            ((BigIntVector) b.getVector(4)).setSafe(i, (Long) r.get(4));
          }
          ((Float8Vector) b.getVector(5)).setSafe(i, (Double) r.get(5));
        }
        b.setRowCount(ROWS_PER_FILE);
      }
      try (ArrowReader reader = readerOf(SCHEMA, batches, allocator)) {
        // A one-byte file size starts a new file for every batch: one file per id range.
        FileWriters.writeParquet(reader, dir, allocator, 1);
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.filter(p -> p.toString().endsWith(".parquet")).count()).isEqualTo(FILES);
    }
    table = ParquetTable.open(dir.toString());
  }

  @AfterEach
  void tearDown() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
    root.close();
  }

  private static ColumnExpr col(String name) {
    int i = SCHEMA.getFields().indexOf(SCHEMA.findField(name));
    return new ColumnExpr(i, name, SCHEMA.getFields().get(i).getType(), true);
  }

  private static PhysicalExpr cmp(Op op, PhysicalExpr l, PhysicalExpr r) {
    return new ComparisonExpr(op, l, r);
  }

  private static LiteralExpr lit(Object v, ArrowType t) {
    return new LiteralExpr(v, t);
  }

  private ParquetScanExec scan(PhysicalExpr... filters) {
    ExecutionPlan plan =
        table.scan(
            new ScanRequest(null, List.of(filters), OptionalLong.empty(), 3, new SessionConfig()));
    return (ParquetScanExec) plan;
  }

  /** Files (by index) the scan reads. */
  private static List<Integer> filesRead(ParquetScanExec scan) {
    return scan.partitionFiles().stream()
        .flatMap(List::stream)
        .map(f -> Integer.parseInt(Path.of(f).getFileName().toString().replaceAll("\\D", "")))
        .sorted()
        .toList();
  }

  /** Checks the pruned scan keeps exactly {@code files} and loses no matching row. */
  private void check(
      List<Integer> files, Predicate<List<Object>> matches, PhysicalExpr... filters) {
    ParquetScanExec pruned = scan(filters);
    assertThat(filesRead(pruned)).isEqualTo(files);
    assertThat(pruned.prunedFiles()).isEqualTo(FILES - files.size());
    if (files.size() < FILES) {
      assertThat(pruned.displayDetails())
          .startsWith("files=" + files.size() + "/" + FILES + " after pruning");
    }
    List<List<Object>> expected =
        readAll(scan(), allocator).stream()
            .filter(matches)
            .map(ParquetPruningTest::normal)
            .toList();
    List<List<Object>> actual =
        readAll(pruned, allocator).stream()
            .filter(matches)
            .map(ParquetPruningTest::normal)
            .toList();
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(expected.size())
        .isEqualTo(
            (int)
                Stream.iterate(0L, i -> i + 1)
                    .limit((long) FILES * ROWS_PER_FILE)
                    .map(ParquetPruningTest::row)
                    .filter(matches)
                    .count());
  }

  private static List<Object> normal(List<Object> r) {
    return r.stream().map(v -> v instanceof Double d && d.isNaN() ? "NaN" : v).toList();
  }

  private static long id(List<Object> r) {
    return (Long) r.get(0);
  }

  @Test
  void bigintRangePrunesFilesOutsideIt() {
    check(
        List.of(2, 3, 4),
        r -> id(r) >= 250 && id(r) < 420,
        new LogicalExpr(
            LogicalExpr.Op.AND,
            List.of(
                cmp(Op.GE, col("id"), lit(250L, BIGINT)),
                cmp(Op.LT, col("id"), lit(420L, BIGINT)))));
    // Literal on the left, and a narrower literal type.
    check(
        List.of(7), r -> id(r) > 700, cmp(Op.LT, lit(700, new ArrowType.Int(32, true)), col("id")));
    check(List.of(), r -> false, cmp(Op.EQ, col("id"), lit(5000L, BIGINT)));
    check(List.of(3), r -> id(r) == 399, cmp(Op.EQ, col("id"), lit(399L, BIGINT)));
  }

  @Test
  void dateRangePrunes() {
    check(
        List.of(7),
        r -> ((LocalDate) r.get(1)).isAfter(BASE.plusDays(699)),
        cmp(Op.GT, col("day"), lit(BASE.plusDays(699), DATE)));
    check(
        List.of(1),
        r -> r.get(1).equals(BASE.plusDays(150)),
        cmp(Op.EQ, col("day"), lit(BASE.plusDays(150), DATE)));
  }

  @Test
  void decimalBetweenPrunes() {
    BigDecimal lo = new BigDecimal("125.00");
    BigDecimal hi = new BigDecimal("250.0");
    check(
        List.of(1, 2),
        r ->
            ((BigDecimal) r.get(2)).compareTo(lo) >= 0
                && ((BigDecimal) r.get(2)).compareTo(hi) <= 0,
        cmp(Op.GE, col("amount"), lit(lo, DEC)),
        cmp(Op.LE, col("amount"), lit(hi, new ArrowType.Decimal(5, 1, 128))));
    // 123.74 lies between file 0's max (123.75) and nothing: file 0 only.
    check(
        List.of(0),
        r -> ((BigDecimal) r.get(2)).compareTo(new BigDecimal("123.74")) <= 0,
        cmp(Op.LE, col("amount"), lit(new BigDecimal("123.74"), DEC)));
  }

  @Test
  void varcharRangeAndInListPrune() {
    check(
        List.of(0),
        r -> ((String) r.get(3)).compareTo("name-00100") < 0,
        cmp(Op.LT, col("name"), lit("name-00100", ArrowType.Utf8.INSTANCE)));
    check(
        List.of(3, 7),
        r -> r.get(3).equals("name-00350") || r.get(3).equals("name-00777"),
        new InListExpr(
            col("name"),
            List.of(
                lit("name-00350", ArrowType.Utf8.INSTANCE),
                LiteralExpr.nullOf(ArrowType.Utf8.INSTANCE),
                lit("name-00777", ArrowType.Utf8.INSTANCE)),
            false));
  }

  @Test
  void nullsOnlyPruneWhenEveryValueIsNull() {
    // File 5 holds only NULLs in sparse; the others hold NULLs and a few values.
    check(
        List.of(0, 1, 2, 3, 4, 6, 7),
        r -> r.get(4) != null && (Long) r.get(4) >= 0,
        cmp(Op.GE, col("sparse"), lit(0L, BIGINT)));
    // 355 is inside file 3's [300, 390] range though no row holds it: the file stays.
    check(List.of(3), r -> false, cmp(Op.EQ, col("sparse"), lit(355L, BIGINT)));
  }

  @Test
  void doubtfulFiltersPruneNothing() {
    List<Integer> all = List.of(0, 1, 2, 3, 4, 5, 6, 7);
    // NOT-like shapes, OR, negated IN, casts that change the order and NaN-holding doubles.
    check(all, r -> id(r) != 5, cmp(Op.NE, col("id"), lit(5L, BIGINT)));
    // An OR with one unrecognised alternative.
    check(
        all,
        r -> id(r) < 5 || id(r) != 790,
        new LogicalExpr(
            LogicalExpr.Op.OR,
            List.of(
                cmp(Op.LT, col("id"), lit(5L, BIGINT)), cmp(Op.NE, col("id"), lit(790L, BIGINT)))));
    check(all, r -> id(r) != 1, new InListExpr(col("id"), List.of(lit(1L, BIGINT)), true));
    check(
        all,
        r -> String.valueOf(id(r)).equals("5"),
        cmp(
            Op.EQ,
            new CastExpr(col("id"), ArrowType.Utf8.INSTANCE),
            lit("5", ArrowType.Utf8.INSTANCE)));
    check(all, r -> false, cmp(Op.EQ, col("id"), LiteralExpr.nullOf(BIGINT)));
  }

  @Test
  void disjunctionsPruneWhenEveryAlternativeIsRefuted() {
    check(
        List.of(0, 7),
        r -> id(r) < 5 || id(r) > 790,
        new LogicalExpr(
            LogicalExpr.Op.OR,
            List.of(
                cmp(Op.LT, col("id"), lit(5L, BIGINT)), cmp(Op.GT, col("id"), lit(790L, BIGINT)))));
    // (id > 150 AND id < 160) OR name = 'name-00620': files 1 and 6.
    check(
        List.of(1, 6),
        r -> (id(r) > 150 && id(r) < 160) || r.get(3).equals("name-00620"),
        new LogicalExpr(
            LogicalExpr.Op.OR,
            List.of(
                new LogicalExpr(
                    LogicalExpr.Op.AND,
                    List.of(
                        cmp(Op.GT, col("id"), lit(150L, BIGINT)),
                        cmp(Op.LT, col("id"), lit(160L, BIGINT)))),
                cmp(Op.EQ, col("name"), lit("name-00620", ArrowType.Utf8.INSTANCE)))));
  }

  @Test
  void wideningCastOfColumnStillPrunes() {
    check(
        List.of(0),
        r -> id(r) < 50,
        cmp(
            Op.LT,
            new CastExpr(col("id"), new ArrowType.Decimal(38, 2, 128)),
            lit(new BigDecimal("50.00"), new ArrowType.Decimal(38, 2, 128))));
  }

  @Test
  void missingStatisticsNaNAndUnsignedNeverPrune() {
    ParquetFooter.RowGroup noStats =
        new ParquetFooter.RowGroup(
            10,
            100,
            100,
            List.of(new ParquetFooter.ColumnChunk("id", ParquetFooter.INT64, null, null, -1)));
    ParquetFooter footer = new ParquetFooter(1000, 10, List.of(noStats));
    ParquetPruning idAbove =
        ParquetPruning.of(
            List.of(cmp(Op.GT, col("id"), lit(1_000_000L, BIGINT))),
            SCHEMA,
            java.util.Set.of("id", "x"));
    assertThat(idAbove.isEmpty()).isFalse();
    assertThat(idAbove.canSkip(footer)).isFalse();
    // A chunk without the column (or with stats of the wrong width) cannot prune either.
    assertThat(
            idAbove.canSkip(
                new ParquetFooter(
                    1000, 10, List.of(new ParquetFooter.RowGroup(10, 100, 100, List.of())))))
        .isFalse();
    byte[] four = {1, 0, 0, 0};
    assertThat(
            idAbove.canSkip(
                new ParquetFooter(
                    1000,
                    10,
                    List.of(
                        new ParquetFooter.RowGroup(
                            10,
                            100,
                            100,
                            List.of(
                                new ParquetFooter.ColumnChunk(
                                    "id", ParquetFooter.INT32, four, four, 0)))))))
        .isFalse();
    // With real 8-byte stats [1, 1] the same filter prunes.
    byte[] one = {1, 0, 0, 0, 0, 0, 0, 0};
    assertThat(
            idAbove.canSkip(
                new ParquetFooter(
                    1000,
                    10,
                    List.of(
                        new ParquetFooter.RowGroup(
                            10,
                            100,
                            100,
                            List.of(
                                new ParquetFooter.ColumnChunk(
                                    "id", ParquetFooter.INT64, one, one, 0)))))))
        .isTrue();
    // Columns not marked prunable (e.g. unsigned in the file) are ignored.
    assertThat(
            ParquetPruning.of(
                    List.of(cmp(Op.GT, col("id"), lit(1L, BIGINT))), SCHEMA, java.util.Set.of())
                .isEmpty())
        .isTrue();
    // NaN statistics on a double column never prune.
    byte[] nan = new byte[8];
    long bits = Double.doubleToLongBits(Double.NaN);
    for (int i = 0; i < 8; i++) {
      nan[i] = (byte) (bits >>> (8 * i));
    }
    ParquetPruning xAbove =
        ParquetPruning.of(
            List.of(cmp(Op.GT, col("x"), lit(5.0, DOUBLE))), SCHEMA, java.util.Set.of("x"));
    assertThat(
            xAbove.canSkip(
                new ParquetFooter(
                    1000,
                    10,
                    List.of(
                        new ParquetFooter.RowGroup(
                            10,
                            100,
                            100,
                            List.of(
                                new ParquetFooter.ColumnChunk(
                                    "x", ParquetFooter.DOUBLE, nan, nan, 0)))))))
        .isFalse();
  }

  @Test
  void sqlFiltersPruneThroughThePlanner() {
    try (dev.quiver.binding.SessionContext ctx = new dev.quiver.binding.SessionContext()) {
      ctx.registerParquet("t", table.path());
      String sql =
          "select count(*) from t where id between 250 and 419 and \"day\" >= date '1995-01-01'"
              + " and name < 'name-00500' and amount > 1.5";
      assertThat(ctx.sql(sql).explain()).contains("files=3/8 after pruning");
      assertThat(ctx.sql("select * from t where id between 250 and 419").count()).isEqualTo(170);
      assertThat(ctx.sql("select * from t where name in ('name-00001', 'name-00702')").count())
          .isEqualTo(2);
      assertThat(ctx.sql("select * from t where name in ('name-00001', 'name-00702')").explain())
          .contains("files=2/8 after pruning");
    }
  }

  @Test
  void footerReadsStatisticsOfWrittenFiles() {
    ParquetFooter f = ParquetFooter.read(table.files().get(2));
    ParquetFooter.RowGroup g = f.rowGroups().get(0);
    ParquetFooter.ColumnChunk id = g.column("id");
    assertThat(id.physicalType()).isEqualTo(ParquetFooter.INT64);
    assertThat(id.min()[0] & 0xFF).isEqualTo(200);
    assertThat(id.max()[0] & 0xFF).isEqualTo(299 & 0xFF);
    assertThat(id.nullCount()).isZero();
    assertThat(g.column("name").physicalType()).isEqualTo(ParquetFooter.BYTE_ARRAY);
    assertThat(new String(g.column("name").min(), StandardCharsets.UTF_8)).isEqualTo("name-00200");
    assertThat(g.column("sparse").nullCount()).isEqualTo(90);
  }
}
