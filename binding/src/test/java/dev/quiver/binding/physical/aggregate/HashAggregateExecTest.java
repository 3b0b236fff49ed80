package dev.quiver.binding.physical.aggregate;

import static dev.quiver.binding.physical.aggregate.TestData.batch;
import static dev.quiver.binding.physical.aggregate.TestData.bools;
import static dev.quiver.binding.physical.aggregate.TestData.col;
import static dev.quiver.binding.physical.aggregate.TestData.collect;
import static dev.quiver.binding.physical.aggregate.TestData.dates;
import static dev.quiver.binding.physical.aggregate.TestData.decimals;
import static dev.quiver.binding.physical.aggregate.TestData.doubles;
import static dev.quiver.binding.physical.aggregate.TestData.longs;
import static dev.quiver.binding.physical.aggregate.TestData.strings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.aggregate.TestData.BatchesExec;
import dev.quiver.binding.physical.aggregate.TestData.GreaterThan;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class HashAggregateExecTest {
  private static final ArrowType BIGINT = new ArrowType.Int(64, true);
  private static final ArrowType DOUBLE =
      new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  private final BufferAllocator allocator = new RootAllocator();
  private final List<BatchesExec> sources = new ArrayList<>();
  @TempDir Path spillDir;

  @AfterEach
  void close() throws Exception {
    sources.forEach(BatchesExec::closeAll);
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
    try (Stream<Path> files = Files.list(spillDir)) {
      assertThat(files).isEmpty();
    }
  }

  private BatchesExec source(List<List<VectorSchemaRoot>> partitions) {
    BatchesExec e = new BatchesExec(partitions.get(0).get(0).getSchema(), partitions);
    sources.add(e);
    return e;
  }

  private TaskContext ctx() {
    return TestData.context(allocator, Long.MAX_VALUE, 4, spillDir);
  }

  private static AggregateCall call(
      AggregateFunction f, PhysicalExpr arg, ArrowType ret, String name) {
    return new AggregateCall(f, arg == null ? List.of() : List.of(arg), false, null, name, ret);
  }

  private static Map<Object, List<Object>> byKey(List<List<Object>> rows) {
    Map<Object, List<Object>> m = new HashMap<>();
    for (List<Object> r : rows) {
      assertThat(m.put(r.get(0), r)).as("duplicate group %s", r.get(0)).isNull();
    }
    return m;
  }

  @Test
  void singleModeComputesEveryFunctionPerGroupWithNulls() {
    VectorSchemaRoot b1 =
        batch(
            strings(allocator, "k", "a", "b", "a", null, "a"),
            longs(allocator, "x", 1L, 10L, null, 7L, 4L),
            doubles(allocator, "d", 1.5, 2.0, 3.5, null, -1.0),
            decimals(allocator, "m", 10, 2, "1.25", "2.50", "-0.75", "9.99", null),
            dates(allocator, "dt", 19000, 19001, 18999, null, 19005),
            bools(allocator, "f", true, false, true, null, false));
    VectorSchemaRoot b2 =
        batch(
            strings(allocator, "k", "b", "c", "a"),
            longs(allocator, "x", null, null, 2L),
            doubles(allocator, "d", 4.0, null, 0.5),
            decimals(allocator, "m", 10, 2, "0.01", null, "3.00"),
            dates(allocator, "dt", 18000, null, 19002),
            bools(allocator, "f", true, null, true));
    BatchesExec in = source(List.of(List.of(b1, b2)));
    ArrowType dec38 = new ArrowType.Decimal(38, 2, 128);
    List<AggregateCall> calls =
        List.of(
            call(AggregateFunction.COUNT, null, BIGINT, "cnt_star"),
            call(AggregateFunction.COUNT, col(b1, 1), BIGINT, "cnt_x"),
            call(AggregateFunction.SUM, col(b1, 1), BIGINT, "sum_x"),
            call(AggregateFunction.AVG, col(b1, 1), DOUBLE, "avg_x"),
            call(AggregateFunction.SUM, col(b1, 2), DOUBLE, "sum_d"),
            call(AggregateFunction.SUM, col(b1, 3), dec38, "sum_m"),
            call(AggregateFunction.AVG, col(b1, 3), DOUBLE, "avg_m"),
            call(AggregateFunction.MIN, col(b1, 3), col(b1, 3).dataType(), "min_m"),
            call(AggregateFunction.MAX, col(b1, 4), col(b1, 4).dataType(), "max_dt"),
            call(AggregateFunction.MIN, col(b1, 0), col(b1, 0).dataType(), "min_k"),
            call(AggregateFunction.MAX, col(b1, 2), DOUBLE, "max_d"),
            call(AggregateFunction.VAR_SAMP, col(b1, 1), DOUBLE, "var_x"),
            call(AggregateFunction.STDDEV_POP, col(b1, 2), DOUBLE, "sd_d"),
            call(AggregateFunction.BOOL_AND, col(b1, 5), ArrowType.Bool.INSTANCE, "all_f"),
            call(AggregateFunction.BOOL_OR, col(b1, 5), ArrowType.Bool.INSTANCE, "any_f"),
            call(AggregateFunction.ANY_VALUE, col(b1, 1), BIGINT, "any_x"));
    HashAggregateExec agg =
        new HashAggregateExec(in, AggregateMode.SINGLE, List.of(col(b1, 0)), List.of("k"), calls);
    List<List<Object>> rows = collect(agg, ctx());
    assertThat(rows).hasSize(4);
    Map<Object, List<Object>> m = byKey(rows);

    // The same through PARTIAL over two partitions (one batch each) and FINAL over all states.
    BatchesExec split = source(List.of(List.of(b1), List.of(b2)));
    List<VectorSchemaRoot> states =
        TestData.collectBatches(
            new HashAggregateExec(
                split, AggregateMode.PARTIAL, List.of(col(b1, 0)), List.of("k"), calls),
            ctx());
    BatchesExec stateSource = source(List.of(states));
    Map<Object, List<Object>> twoPhase =
        byKey(
            collect(
                new HashAggregateExec(
                    stateSource,
                    AggregateMode.FINAL,
                    List.of(col(stateSource.schema(), 0)),
                    List.of("k"),
                    calls),
                ctx()));
    assertThat(twoPhase.keySet()).isEqualTo(m.keySet());
    for (Object key : m.keySet()) {
      List<Object> single = m.get(key);
      List<Object> merged = twoPhase.get(key);
      for (int j = 0; j < 16; j++) { // ANY_VALUE (column 16) may pick another row
        if (single.get(j) instanceof Double d) {
          assertThat((Double) merged.get(j))
              .as("column %s of group %s", j, key)
              .isCloseTo(d, within(1e-12));
        } else {
          assertThat(merged.get(j)).as("column %s of group %s", j, key).isEqualTo(single.get(j));
        }
      }
    }

    List<Object> a =
        m.get("a"); // x: 1, null, 4, 2; d: 1.5, 3.5, -1.0, 0.5; m: 1.25, -0.75, null, 3.00
    assertThat(a.subList(1, 4)).containsExactly(4L, 3L, 7L);
    assertThat((Double) a.get(4)).isCloseTo(7.0 / 3, within(1e-12));
    assertThat((Double) a.get(5)).isEqualTo(4.5);
    assertThat((BigDecimal) a.get(6)).isEqualByComparingTo("3.50");
    assertThat((Double) a.get(7)).isCloseTo(3.5 / 3, within(1e-12));
    assertThat((BigDecimal) a.get(8)).isEqualByComparingTo("-0.75");
    assertThat(a.get(9)).isEqualTo(19005); // DateDayVector.getObject gives epoch days
    assertThat(a.get(10)).isEqualTo("a");
    assertThat(a.get(11)).isEqualTo(3.5);
    assertThat((Double) a.get(12)).isCloseTo(7.0 / 3, within(1e-12)); // var_samp(1,4,2)
    double mean = 4.5 / 4;
    double pop =
        (Math.pow(1.5 - mean, 2)
                + Math.pow(3.5 - mean, 2)
                + Math.pow(-1 - mean, 2)
                + Math.pow(0.5 - mean, 2))
            / 4;
    assertThat((Double) a.get(13)).isCloseTo(Math.sqrt(pop), within(1e-12));
    assertThat(a.get(14)).isEqualTo(false);
    assertThat(a.get(15)).isEqualTo(true);
    assertThat(a.get(16)).isIn(1L, 4L, 2L);

    List<Object> b = m.get("b"); // x: 10, null; d: 2.0, 4.0; m: 2.50, 0.01
    assertThat(b.subList(1, 4)).containsExactly(2L, 1L, 10L);
    assertThat((BigDecimal) b.get(6)).isEqualByComparingTo("2.51");
    assertThat(b.get(12)).isNull(); // var_samp of one value
    assertThat(b.get(14)).isEqualTo(false);

    List<Object> c = m.get("c"); // every argument null
    assertThat(c.subList(1, 4)).containsExactly(1L, 0L, null);
    assertThat(c.subList(4, 10)).containsOnlyNulls();
    assertThat(c.get(10)).isEqualTo("c");
    assertThat(c.subList(11, 17)).containsOnlyNulls();

    List<Object> n = m.get(null); // the null key is a group of its own
    assertThat(n.subList(1, 4)).containsExactly(1L, 1L, 7L);
    assertThat((BigDecimal) n.get(8)).isEqualByComparingTo("9.99");
  }

  @Test
  void globalAggregateOfEmptyInputIsOneRow() {
    VectorSchemaRoot empty = batch(longs(allocator, "x"));
    BatchesExec in = source(List.of(List.of(empty), List.of(empty)));
    List<AggregateCall> calls =
        List.of(
            call(AggregateFunction.COUNT, null, BIGINT, "c"),
            call(AggregateFunction.SUM, col(empty, 0), BIGINT, "s"),
            call(AggregateFunction.MIN, col(empty, 0), BIGINT, "mn"));
    HashAggregateExec single =
        new HashAggregateExec(in, AggregateMode.SINGLE, List.of(), List.of(), calls);
    assertThat(collect(single, TestData.context(allocator, Long.MAX_VALUE, 4, spillDir)))
        .containsExactly(
            java.util.Arrays.asList(0L, null, null), java.util.Arrays.asList(0L, null, null));

    // PARTIAL over two partitions then FINAL over their union still gives one row.
    HashAggregateExec partial =
        new HashAggregateExec(in, AggregateMode.PARTIAL, List.of(), List.of(), calls);
    List<VectorSchemaRoot> states = TestData.collectBatches(partial, ctx());
    BatchesExec stateSource = source(List.of(states));
    HashAggregateExec fin =
        new HashAggregateExec(stateSource, AggregateMode.FINAL, List.of(), List.of(), calls);
    assertThat(collect(fin, ctx())).containsExactly(java.util.Arrays.asList(0L, null, null));

    // A grouped aggregate of empty input has no rows.
    HashAggregateExec grouped =
        new HashAggregateExec(
            in, AggregateMode.SINGLE, List.of(col(empty, 0)), List.of("x"), calls);
    assertThat(collect(grouped, ctx())).isEmpty();
  }

  @Test
  void filterAndDistinctAreHonoured() {
    VectorSchemaRoot b =
        batch(
            longs(allocator, "k", 1L, 1L, 1L, 1L, 2L, 2L, 2L),
            longs(allocator, "x", 5L, 5L, 7L, null, 1L, 9L, 9L));
    BatchesExec in = source(List.of(List.of(b)));
    List<AggregateCall> calls =
        List.of(
            new AggregateCall(
                AggregateFunction.COUNT, List.of(col(b, 1)), true, null, "cd", BIGINT),
            new AggregateCall(AggregateFunction.SUM, List.of(col(b, 1)), true, null, "sd", BIGINT),
            new AggregateCall(
                AggregateFunction.SUM,
                List.of(col(b, 1)),
                false,
                new GreaterThan(1, 5),
                "sf",
                BIGINT),
            new AggregateCall(
                AggregateFunction.COUNT, List.of(), true, new GreaterThan(1, 6), "cf", BIGINT),
            new AggregateCall(
                AggregateFunction.COUNT,
                List.of(col(b, 1)),
                true,
                new GreaterThan(1, 4),
                "cdf",
                BIGINT));
    HashAggregateExec agg =
        new HashAggregateExec(in, AggregateMode.SINGLE, List.of(col(b, 0)), List.of("k"), calls);
    Map<Object, List<Object>> m = byKey(collect(agg, ctx()));
    assertThat(m.get(1L)).containsExactly(1L, 2L, 12L, 7L, 1L, 2L);
    assertThat(m.get(2L)).containsExactly(2L, 2L, 10L, 18L, 1L, 1L);

    assertThatThrownBy(
            () -> new HashAggregateExec(in, AggregateMode.PARTIAL, List.of(), List.of(), calls))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("SINGLE");
  }

  @Test
  void decimalSumsStayExactBeyondLongRange() {
    String big = "90000000000000000.00"; // unscaled 9e18, close to Long.MAX_VALUE
    VectorSchemaRoot b =
        batch(
            longs(allocator, "k", 1L, 1L, 1L, 2L),
            decimals(allocator, "m", 38, 2, big, big, "-0.01", "-" + big));
    BatchesExec in = source(List.of(List.of(b)));
    List<AggregateCall> calls =
        List.of(
            call(AggregateFunction.SUM, col(b, 1), new ArrowType.Decimal(38, 2, 128), "s"),
            call(AggregateFunction.AVG, col(b, 1), new ArrowType.Decimal(38, 4, 128), "a"),
            call(AggregateFunction.MAX, col(b, 1), col(b, 1).dataType(), "mx"));
    // Through PARTIAL -> FINAL as well, so the overflowed state round-trips through Arrow.
    HashAggregateExec partial =
        new HashAggregateExec(in, AggregateMode.PARTIAL, List.of(col(b, 0)), List.of("k"), calls);
    List<VectorSchemaRoot> states = TestData.collectBatches(partial, ctx());
    BatchesExec stateSource = source(List.of(states));
    HashAggregateExec fin =
        new HashAggregateExec(
            stateSource,
            AggregateMode.FINAL,
            List.of(col(stateSource.schema(), 0)),
            List.of("k"),
            calls);
    Map<Object, List<Object>> m = byKey(collect(fin, ctx()));
    assertThat((BigDecimal) m.get(1L).get(1)).isEqualByComparingTo("179999999999999999.99");
    assertThat((BigDecimal) m.get(1L).get(2)).isEqualByComparingTo("59999999999999999.9967");
    assertThat((BigDecimal) m.get(1L).get(3)).isEqualByComparingTo(big);
    assertThat((BigDecimal) m.get(2L).get(1)).isEqualByComparingTo("-" + big);
  }

  @Test
  void sumOfBigintOverflowIsAClearError() {
    VectorSchemaRoot b = batch(longs(allocator, "x", Long.MAX_VALUE, 1L));
    BatchesExec in = source(List.of(List.of(b)));
    HashAggregateExec agg =
        new HashAggregateExec(
            in,
            AggregateMode.SINGLE,
            List.of(),
            List.of(),
            List.of(call(AggregateFunction.SUM, col(b, 0), BIGINT, "s")));
    assertThatThrownBy(() -> collect(agg, ctx()))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("overflowed BIGINT in s");
  }

  /** Random (k1, k2, s, x) rows: two BIGINT keys, a string key and a value. */
  private List<List<VectorSchemaRoot>> randomPartitions(
      int partitions, int batches, int rows, int keys, long seed) {
    Random r = new Random(seed);
    List<List<VectorSchemaRoot>> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      List<VectorSchemaRoot> list = new ArrayList<>();
      for (int b = 0; b < batches; b++) {
        Long[] k1 = new Long[rows];
        Long[] k2 = new Long[rows];
        String[] s = new String[rows];
        Long[] x = new Long[rows];
        for (int i = 0; i < rows; i++) {
          int k = r.nextInt(keys);
          k1[i] = (long) (k % 1000);
          k2[i] = k % 97 == 0 ? null : (long) (k / 1000);
          s[i] = "key-" + k;
          x[i] = r.nextInt(10) == 0 ? null : (long) r.nextInt(1000) - 300;
        }
        list.add(
            batch(
                longs(allocator, "k1", k1),
                longs(allocator, "k2", k2),
                strings(allocator, "s", s),
                longs(allocator, "x", x)));
      }
      out.add(list);
    }
    return out;
  }

  private List<AggregateCall> valueCalls(Schema schema) {
    return List.of(
        call(AggregateFunction.COUNT, null, BIGINT, "c"),
        call(AggregateFunction.SUM, col(schema, 3), BIGINT, "s"),
        call(AggregateFunction.MIN, col(schema, 3), BIGINT, "mn"),
        call(AggregateFunction.AVG, col(schema, 3), DOUBLE, "a"),
        call(AggregateFunction.VAR_POP, col(schema, 3), DOUBLE, "v"));
  }

  /** Sorts rows by their group keys (the first two columns), computing each sort key once. */
  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<Map.Entry<String, List<Object>>> keyed = new ArrayList<>();
    for (List<Object> r : rows) {
      keyed.add(Map.entry(r.get(0) + "|" + r.get(1), r));
    }
    keyed.sort(Map.Entry.comparingByKey());
    rows.clear();
    keyed.forEach(e -> rows.add(e.getValue()));
    return rows;
  }

  private static void assertSameRows(List<List<Object>> actual, List<List<Object>> expected) {
    assertThat(actual).hasSameSizeAs(expected);
    sorted(actual);
    sorted(expected);
    // Plain comparisons: an AssertJ call per value would dominate the test's run time.
    List<String> mismatches = new ArrayList<>();
    for (int i = 0; i < actual.size(); i++) {
      List<Object> a = actual.get(i);
      List<Object> e = expected.get(i);
      for (int j = 0; j < a.size(); j++) {
        boolean same =
            a.get(j) instanceof Double d && e.get(j) instanceof Double f
                ? Math.abs(d - f) <= 1e-6 * Math.max(1, Math.abs(d))
                : java.util.Objects.equals(a.get(j), e.get(j));
        if (!same && mismatches.size() < 10) {
          mismatches.add(a + " vs " + e);
        }
      }
    }
    assertThat(mismatches).isEmpty();
  }

  @Test
  void partialThenFinalOverPartitionsEqualsSingle() {
    List<List<VectorSchemaRoot>> parts = randomPartitions(3, 6, 20_000, 150_000, 42);
    BatchesExec in = source(parts);
    Schema schema = in.schema();
    List<AggregateCall> calls = valueCalls(schema);
    List<PhysicalExpr> keys = List.of(col(schema, 0), col(schema, 1));
    List<String> names = List.of("k1", "k2");
    // A partition runs at most once per execution: each run gets its own context.
    java.util.function.Supplier<TaskContext> ctx =
        () -> TestData.context(allocator, Long.MAX_VALUE, 8192, spillDir);

    // SINGLE over the coalesced input.
    List<VectorSchemaRoot> all = new ArrayList<>();
    parts.forEach(all::addAll);
    BatchesExec coalesced = new BatchesExec(schema, List.of(all));
    List<List<Object>> expected =
        collect(
            new HashAggregateExec(coalesced, AggregateMode.SINGLE, keys, names, calls), ctx.get());
    assertThat(expected.size()).isGreaterThan(100_000);

    HashAggregateExec partial =
        new HashAggregateExec(in, AggregateMode.PARTIAL, keys, names, calls);
    List<VectorSchemaRoot> states = TestData.collectBatches(partial, ctx.get());
    assertThat(states).allSatisfy(s -> assertThat(s.getRowCount()).isLessThanOrEqualTo(8192));
    BatchesExec stateSource = source(List.of(states));
    Schema ss = stateSource.schema();
    HashAggregateExec fin =
        new HashAggregateExec(
            stateSource, AggregateMode.FINAL, List.of(col(ss, 0), col(ss, 1)), names, calls);
    assertThat(fin.schema())
        .isEqualTo(
            new HashAggregateExec(coalesced, AggregateMode.SINGLE, keys, names, calls).schema());
    assertSameRows(collect(fin, ctx.get()), expected);

    // Cross-check the SINGLE result against a plain Java computation on the string key.
    Map<String, long[]> javaAgg = new HashMap<>();
    for (VectorSchemaRoot b : all) {
      for (int i = 0; i < b.getRowCount(); i++) {
        long[] acc =
            javaAgg.computeIfAbsent(b.getVector(2).getObject(i).toString(), k -> new long[2]);
        acc[0]++;
        BigIntVector x = (BigIntVector) b.getVector(3);
        acc[1] += x.isNull(i) ? 0 : x.get(i);
      }
    }
    List<List<Object>> byString =
        collect(
            new HashAggregateExec(
                coalesced, AggregateMode.SINGLE, List.of(col(schema, 2)), List.of("s"), calls),
            ctx.get());
    assertThat(byString).hasSize(javaAgg.size());
    int wrong = 0;
    for (List<Object> row : byString) {
      long[] acc = javaAgg.get((String) row.get(0));
      if (acc == null
          || !row.get(1).equals(acc[0])
          || (row.get(2) != null && !row.get(2).equals(acc[1]))) {
        wrong++;
      }
    }
    assertThat(wrong).isZero();
  }

  @Test
  void partialAggregationOfClusteredKeysStartsOverAndFinalMergesTheSplitKeys() {
    // Keys in runs of 2 to 5 rows, ascending, batches of 1,000 rows each cutting a run: as a file
    // stored in key order. 140,000 keys are twice ClusteredKeys.CHECK_GROUPS and more.
    int keys = 140_000;
    Random r = new Random(7);
    List<VectorSchemaRoot> clustered = new ArrayList<>();
    List<Long> k = new ArrayList<>();
    List<Long> x = new ArrayList<>();
    for (long key = 0; key < keys; key++) {
      int run = 2 + r.nextInt(4);
      for (int i = 0; i < run; i++) {
        k.add(key);
        x.add(r.nextInt(10) == 0 ? null : (long) r.nextInt(100));
        if (k.size() >= 1000 && i == 0) {
          clustered.add(twoLongs(k, x)); // the run goes on in the next batch
        }
      }
    }
    clustered.add(twoLongs(k, x));
    int partialRows = partialThenFinalEqualsSingle(clustered);
    // Each start-over splits the run its batch cut (two rows for that key); without them, one
    // row per key. 140,000 groups restart at least twice.
    assertThat(partialRows - keys).isBetween(2, keys / ClusteredKeys.CHECK_GROUPS + 1);

    // The same keys in random order: no start-over, one partial row per key.
    List<Long> order = new ArrayList<>();
    for (VectorSchemaRoot b : clustered) {
      for (int i = 0; i < b.getRowCount(); i++) {
        order.add(((BigIntVector) b.getVector(0)).get(i));
      }
    }
    java.util.Collections.shuffle(order, r);
    List<VectorSchemaRoot> scattered = new ArrayList<>();
    for (long key : order) {
      k.add(key);
      x.add(key % 7 == 0 ? null : key % 100);
      if (k.size() == 1000) {
        scattered.add(twoLongs(k, x));
      }
    }
    scattered.add(twoLongs(k, x));
    assertThat(partialThenFinalEqualsSingle(scattered)).isEqualTo(keys);
  }

  /** A batch of columns k and x from the lists, which it empties. */
  private VectorSchemaRoot twoLongs(List<Long> k, List<Long> x) {
    VectorSchemaRoot b =
        batch(
            longs(allocator, "k", k.toArray(new Long[0])),
            longs(allocator, "x", x.toArray(new Long[0])));
    k.clear();
    x.clear();
    return b;
  }

  /**
   * Aggregates {@code batches} by column 0 in one partition, PARTIAL then FINAL, checks the result
   * equals SINGLE's, and returns how many rows PARTIAL emitted.
   */
  private int partialThenFinalEqualsSingle(List<VectorSchemaRoot> batches) {
    BatchesExec in = source(List.of(batches));
    Schema schema = in.schema();
    List<AggregateCall> calls =
        List.of(
            call(AggregateFunction.COUNT, null, BIGINT, "c"),
            call(AggregateFunction.SUM, col(schema, 1), BIGINT, "s"),
            call(AggregateFunction.MIN, col(schema, 1), BIGINT, "mn"),
            call(AggregateFunction.AVG, col(schema, 1), DOUBLE, "a"));
    List<PhysicalExpr> keys = List.of(col(schema, 0));
    List<String> names = List.of("k");
    java.util.function.Supplier<TaskContext> ctx =
        () -> TestData.context(allocator, Long.MAX_VALUE, 8192, spillDir);
    List<List<Object>> expected =
        collect(new HashAggregateExec(in, AggregateMode.SINGLE, keys, names, calls), ctx.get());
    List<VectorSchemaRoot> states =
        TestData.collectBatches(
            new HashAggregateExec(in, AggregateMode.PARTIAL, keys, names, calls), ctx.get());
    int partialRows = states.stream().mapToInt(VectorSchemaRoot::getRowCount).sum();
    BatchesExec stateSource = source(List.of(states));
    List<List<Object>> merged =
        collect(
            new HashAggregateExec(
                stateSource,
                AggregateMode.FINAL,
                List.of(col(stateSource.schema(), 0)),
                names,
                calls),
            ctx.get());
    assertThat(byKey(merged)).isEqualTo(byKey(expected));
    return partialRows;
  }

  private VectorSchemaRoot sequence(int from, int count) {
    BigIntVector k = new BigIntVector("k", allocator);
    IntVector x = new IntVector("x", allocator);
    k.allocateNew(count);
    x.allocateNew(count);
    for (int i = 0; i < count; i++) {
      // Keys are scattered so that every spill run covers the whole hash range.
      k.set(i, ((long) (from + i) * 7919) % 1_000_003);
      x.set(i, (from + i) % 5);
    }
    k.setValueCount(count);
    x.setValueCount(count);
    return batch(k, x);
  }

  @Test
  void singleModeSpillsUnderASmallPoolAndStillAggregatesExactly() {
    int n = 1_000_000;
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int from = 0; from < n; from += 50_000) {
      batches.add(sequence(from, 50_000));
    }
    // Every key appears twice: once in the first and once in the second half of the input.
    List<VectorSchemaRoot> twice = new ArrayList<>(batches);
    for (VectorSchemaRoot b : batches) {
      twice.add(Batches.slice(b, 0, b.getRowCount(), allocator));
    }
    BatchesExec in = source(List.of(twice));
    Schema s = in.schema();
    List<AggregateCall> calls =
        List.of(
            call(AggregateFunction.COUNT, null, BIGINT, "c"),
            call(AggregateFunction.SUM, col(s, 1), BIGINT, "sx"),
            call(AggregateFunction.MAX, col(s, 1), new ArrowType.Int(32, true), "mx"));
    HashAggregateExec agg =
        new HashAggregateExec(in, AggregateMode.SINGLE, List.of(col(s, 0)), List.of("k"), calls);
    TaskContext ctx = TestData.context(allocator, 4L << 20, 8192, spillDir);
    long groups = 0;
    long count = 0;
    long sum = 0;
    int maxBatch = 0;
    long wrong = 0;
    try (BatchStream stream = agg.execute(0, ctx)) {
      VectorSchemaRoot b;
      while ((b = stream.next()) != null) {
        try (VectorSchemaRoot owned = b) {
          groups += b.getRowCount();
          maxBatch = Math.max(maxBatch, b.getRowCount());
          BigIntVector c = (BigIntVector) b.getVector(1);
          BigIntVector sx = (BigIntVector) b.getVector(2);
          IntVector mx = (IntVector) b.getVector(3);
          BigIntVector k = (BigIntVector) b.getVector(0);
          for (int i = 0; i < b.getRowCount(); i++) {
            count += c.get(i);
            sum += sx.get(i);
            if (c.get(i) != 2 || sx.get(i) != 2L * mx.get(i) || k.isNull(i)) {
              wrong++;
            }
          }
        }
      }
    }
    assertThat(wrong).isZero();
    assertThat(groups).isEqualTo(n);
    assertThat(count).isEqualTo(2L * n);
    assertThat(sum).isEqualTo(2L * (n / 5) * (0 + 1 + 2 + 3 + 4));
    assertThat(maxBatch).isLessThanOrEqualTo(8192);
    assertThat(agg.metrics().spillCount()).isGreaterThan(0);
    assertThat(agg.metrics().spilledBytes()).isGreaterThan(0);
    assertThat(ctx.memoryPool().reserved()).isZero();
  }

  @Test
  void partialModeEmitsEarlyUnderPressureAndFinalSpills() {
    int n = 300_000;
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int from = 0; from < n; from += 30_000) {
      batches.add(sequence(from, 30_000));
    }
    BatchesExec in = source(List.of(batches));
    Schema s = in.schema();
    List<AggregateCall> calls =
        List.of(
            call(AggregateFunction.COUNT, null, BIGINT, "c"),
            call(AggregateFunction.SUM, col(s, 1), BIGINT, "sx"));
    List<String> names = List.of("k");
    TaskContext tight = TestData.context(allocator, 1L << 20, 4096, spillDir);
    HashAggregateExec partial =
        new HashAggregateExec(in, AggregateMode.PARTIAL, List.of(col(s, 0)), names, calls);
    List<VectorSchemaRoot> states = TestData.collectBatches(partial, tight);
    BatchesExec stateSource = source(List.of(states));
    HashAggregateExec fin =
        new HashAggregateExec(
            stateSource, AggregateMode.FINAL, List.of(col(stateSource.schema(), 0)), names, calls);
    List<List<Object>> rows = collect(fin, tight);
    assertThat(rows).hasSize(n);
    assertThat(rows.stream().mapToLong(r -> (Long) r.get(1)).sum()).isEqualTo(n);
    assertThat(rows.stream().mapToLong(r -> (Long) r.get(2)).sum()).isEqualTo((long) (n / 5) * 10);
    assertThat(fin.metrics().spillCount()).isGreaterThan(0);
  }

  @Test
  void stringKeysAndStringStatesSurviveSpilling() {
    int n = 200_000;
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int from = 0; from < 2 * n; from += 20_000) {
      String[] k = new String[20_000];
      String[] v = new String[20_000];
      for (int i = 0; i < k.length; i++) {
        int key = (from + i) % n;
        k[i] = key % 1000 == 0 ? null : "customer#" + key;
        v[i] = "v" + ((from + i) / n) + "-" + key; // first pass "v0-..", second "v1-.."
      }
      batches.add(batch(strings(allocator, "k", k), strings(allocator, "v", v)));
    }
    BatchesExec in = source(List.of(batches));
    Schema s = in.schema();
    ArrowType utf8 = ArrowType.Utf8.INSTANCE;
    HashAggregateExec agg =
        new HashAggregateExec(
            in,
            AggregateMode.SINGLE,
            List.of(col(s, 0)),
            List.of("k"),
            List.of(
                call(AggregateFunction.COUNT, null, BIGINT, "c"),
                call(AggregateFunction.MIN, col(s, 1), utf8, "mn"),
                call(AggregateFunction.MAX, col(s, 1), utf8, "mx")));
    TaskContext ctx = TestData.context(allocator, 2L << 20, 8192, spillDir);
    List<List<Object>> rows = collect(agg, ctx);
    assertThat(agg.metrics().spillCount()).isGreaterThan(0);
    assertThat(rows).hasSize(n - n / 1000 + 1);
    int wrong = 0;
    for (List<Object> r : rows) {
      if (r.get(0) == null) {
        if (!r.get(1).equals(2L * (n / 1000)) || !"v0-0".equals(r.get(2))) {
          wrong++;
        }
        continue;
      }
      String key = ((String) r.get(0)).substring("customer#".length());
      if (!r.get(1).equals(2L) || !r.get(2).equals("v0-" + key) || !r.get(3).equals("v1-" + key)) {
        wrong++;
      }
    }
    assertThat(wrong).isZero();
  }

  @Test
  void distinctThatDoesNotFitIsResourcesExhausted() {
    BatchesExec in = source(List.of(List.of(sequence(0, 200_000))));
    Schema s = in.schema();
    HashAggregateExec agg =
        new HashAggregateExec(
            in,
            AggregateMode.SINGLE,
            List.of(),
            List.of(),
            List.of(
                new AggregateCall(
                    AggregateFunction.COUNT, List.of(col(s, 0)), true, null, "cd", BIGINT)));
    assertThatThrownBy(() -> collect(agg, TestData.context(allocator, 64 << 10, 8192, spillDir)))
        .isInstanceOf(ResourcesExhaustedException.class)
        .hasMessageContaining("HashAggregateExec");
    assertThat(collect(agg, ctx())).containsExactly(List.of(200_000L));
  }

  @Test
  void groupsOnEveryKeyTypeTogether() {
    VectorSchemaRoot b =
        batch(
            decimals(allocator, "m", 10, 2, "1.50", "1.50", null, "1.50", null, "-2.00"),
            doubles(allocator, "d", 0.0, -0.0, Double.NaN, 0.0, Double.NaN, null),
            bools(allocator, "f", true, true, null, true, null, false),
            dates(allocator, "dt", 5, 5, 7, 5, 7, null),
            longs(allocator, "x", 1L, 2L, 3L, 4L, 5L, 6L));
    BatchesExec in = source(List.of(List.of(b)));
    Schema s = in.schema();
    HashAggregateExec agg =
        new HashAggregateExec(
            in,
            AggregateMode.SINGLE,
            List.of(col(s, 0), col(s, 1), col(s, 2), col(s, 3)),
            List.of("m", "d", "f", "dt"),
            List.of(call(AggregateFunction.SUM, col(s, 4), BIGINT, "sx")));
    List<List<Object>> rows = collect(agg, ctx());
    // -0.0 groups with 0.0 and NaN with NaN, as SQL equality on keys requires.
    assertThat(rows).hasSize(3);
    Map<Object, Long> sums = new HashMap<>();
    for (List<Object> r : rows) {
      sums.put(r.get(0) == null ? null : ((BigDecimal) r.get(0)).toPlainString(), (Long) r.get(4));
    }
    assertThat(sums).containsEntry("1.50", 7L).containsEntry(null, 8L).containsEntry("-2.00", 6L);
  }

  @Test
  void closingMidwayDeletesSpillFilesAndFreesMemory() {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int from = 0; from < 200_000; from += 20_000) {
      batches.add(sequence(from, 20_000));
    }
    BatchesExec in = source(List.of(batches));
    Schema s = in.schema();
    HashAggregateExec agg =
        new HashAggregateExec(
            in,
            AggregateMode.SINGLE,
            List.of(col(s, 0)),
            List.of("k"),
            List.of(call(AggregateFunction.SUM, col(s, 1), BIGINT, "sx")));
    TaskContext ctx = TestData.context(allocator, 1L << 20, 1024, spillDir);
    try (BatchStream stream = agg.execute(0, ctx)) {
      try (VectorSchemaRoot first = stream.next()) {
        assertThat(first.getRowCount()).isEqualTo(1024);
      }
      assertThat(agg.metrics().spillCount()).isGreaterThan(1);
    }
    assertThat(ctx.memoryPool().reserved()).isZero();
    // @AfterEach checks that the spill directory is empty and the allocator is at zero.
  }

  @Test
  void describesItself() {
    VectorSchemaRoot b = batch(longs(allocator, "k", 1L), longs(allocator, "x", 2L));
    BatchesExec in = source(List.of(List.of(b)));
    AggregateCall sum = call(AggregateFunction.SUM, col(b, 1), BIGINT, "s");
    HashAggregateExec agg =
        new HashAggregateExec(
            in, AggregateMode.PARTIAL, List.of(col(b, 0)), List.of("k"), List.of(sum));
    assertThat(agg.displayDetails())
        .isEqualTo("mode=PARTIAL, gby=[k@0 as k], aggr=[SUM(x@1) as s]");
    assertThat(agg.schema().getFields())
        .extracting(f -> f.getName())
        .containsExactly("k", "s[sum]", "s[count]");
    assertThat(HashAggregateExec.stateFields(sum)).hasSize(2);
    assertThat(agg.withNewChildren(List.of(in)).schema()).isEqualTo(agg.schema());
    assertThat(agg.outputPartitioning().partitionCount()).isEqualTo(1);

    // FINAL over input hashed on its group keys stays hashed on the output group columns.
    BatchesExec hashed =
        new BatchesExec(b.getSchema(), List.of(List.of(b), List.of())) {
          @Override
          public dev.quiver.binding.physical.Partitioning outputPartitioning() {
            return dev.quiver.binding.physical.Partitioning.hash(List.of(col(b, 0)), 2);
          }
        };
    HashAggregateExec fin =
        new HashAggregateExec(
            hashed, AggregateMode.FINAL, List.of(col(b, 0)), List.of("key"), List.of(sum));
    assertThat(fin.outputPartitioning().kind())
        .isEqualTo(dev.quiver.binding.physical.Partitioning.Kind.HASH);
    assertThat(fin.outputPartitioning().hashExprs())
        .extracting(Object::toString)
        .containsExactly("key@0");
    assertThat(fin.outputPartitioning().partitionCount()).isEqualTo(2);
  }
}
