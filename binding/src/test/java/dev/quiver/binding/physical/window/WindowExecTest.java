package dev.quiver.binding.physical.window;

import static dev.quiver.binding.physical.aggregate.TestData.batch;
import static dev.quiver.binding.physical.aggregate.TestData.col;
import static dev.quiver.binding.physical.aggregate.TestData.decimals;
import static dev.quiver.binding.physical.aggregate.TestData.doubles;
import static dev.quiver.binding.physical.aggregate.TestData.longs;
import static dev.quiver.binding.physical.aggregate.TestData.strings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.aggregate.TestData;
import dev.quiver.binding.physical.aggregate.TestData.BatchesExec;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.window.WindowFrame.Bound;
import dev.quiver.binding.physical.window.WindowFrame.BoundKind;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class WindowExecTest {
  private static final ArrowType BIGINT = new ArrowType.Int(64, true);
  private static final ArrowType DOUBLE =
      new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  private final BufferAllocator allocator = new RootAllocator();
  private final List<BatchesExec> sources = new ArrayList<>();

  @AfterEach
  void close() {
    sources.forEach(BatchesExec::closeAll);
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  private TaskContext ctx(int batchSize) {
    return TestData.context(allocator, Long.MAX_VALUE, batchSize, null);
  }

  /**
   * Rows (p, o, x), sorted by p then o ASC NULLS LAST, split across two batches so that partition
   * "a" spans them.
   */
  private BatchesExec input() {
    VectorSchemaRoot b1 =
        batch(
            strings(allocator, "p", "a", "a", "a", "a"),
            longs(allocator, "o", 1L, 2L, 2L, 4L),
            longs(allocator, "x", 5L, 3L, null, 7L));
    VectorSchemaRoot b2 =
        batch(
            strings(allocator, "p", "a", "a", "b", "b", "b"),
            longs(allocator, "o", 7L, null, 10L, 20L, 30L),
            longs(allocator, "x", 1L, 2L, 4L, 6L, 8L));
    BatchesExec e = new BatchesExec(b1.getSchema(), List.of(List.of(b1, b2)));
    sources.add(e);
    return e;
  }

  private static WindowCall call(
      Schema s, WindowFunction f, List<PhysicalExpr> args, WindowFrame frame, ArrowType type) {
    return new WindowCall(
        f,
        args,
        List.of(col(s, 0)),
        List.of(new SortField(col(s, 1), true, false)),
        frame,
        f.name().toLowerCase(),
        type);
  }

  private static WindowFrame rows(BoundKind sk, long so, BoundKind ek, long eo) {
    return new WindowFrame(true, new Bound(sk, so), new Bound(ek, eo));
  }

  private static WindowFrame range(BoundKind sk, long so, BoundKind ek, long eo) {
    return new WindowFrame(false, new Bound(sk, so), new Bound(ek, eo));
  }

  /** Runs one call and returns its output column. */
  private List<Object> run(BatchesExec in, WindowCall call) {
    WindowExec w = new WindowExec(in, List.of(call));
    List<List<Object>> rows = TestData.collect(w, ctx(4));
    List<Object> out = new ArrayList<>();
    for (List<Object> r : rows) {
      assertThat(r).hasSize(in.schema().getFields().size() + 1);
      out.add(r.get(r.size() - 1));
    }
    return out;
  }

  private static List<Object> l(Object... v) {
    return Arrays.asList(v);
  }

  private static PhysicalExpr lit(long v) {
    return new PhysicalExpr() {
      @Override
      public ArrowType dataType() {
        return BIGINT;
      }

      @Override
      public boolean nullable() {
        return false;
      }

      @Override
      public org.apache.arrow.vector.FieldVector evaluate(VectorSchemaRoot b, BufferAllocator a) {
        BigIntVector out = new BigIntVector("lit", a);
        out.allocateNew(Math.max(1, b.getRowCount()));
        for (int i = 0; i < b.getRowCount(); i++) {
          out.set(i, v);
        }
        out.setValueCount(b.getRowCount());
        return out;
      }

      @Override
      public List<PhysicalExpr> children() {
        return List.of();
      }
    };
  }

  @Test
  void rankingFunctions() {
    BatchesExec in = input();
    Schema s = in.schema();
    assertThat(run(in, call(s, WindowFunction.ROW_NUMBER, List.of(), null, BIGINT)))
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 1L, 2L, 3L);
    assertThat(run(in, call(s, WindowFunction.RANK, List.of(), null, BIGINT)))
        .containsExactly(1L, 2L, 2L, 4L, 5L, 6L, 1L, 2L, 3L);
    assertThat(run(in, call(s, WindowFunction.DENSE_RANK, List.of(), null, BIGINT)))
        .containsExactly(1L, 2L, 2L, 3L, 4L, 5L, 1L, 2L, 3L);
    assertThat(run(in, call(s, WindowFunction.PERCENT_RANK, List.of(), null, DOUBLE)))
        .containsExactly(0.0, 0.2, 0.2, 0.6, 0.8, 1.0, 0.0, 0.5, 1.0);
    assertThat(run(in, call(s, WindowFunction.CUME_DIST, List.of(), null, DOUBLE)))
        .containsExactly(1 / 6.0, 3 / 6.0, 3 / 6.0, 4 / 6.0, 5 / 6.0, 1.0, 1 / 3.0, 2 / 3.0, 1.0);
    assertThat(run(in, call(s, WindowFunction.NTILE, List.of(lit(4)), null, BIGINT)))
        .containsExactly(1L, 1L, 2L, 2L, 3L, 4L, 1L, 2L, 3L);
  }

  @Test
  void lagLeadWithOffsetsAndDefaults() {
    BatchesExec in = input();
    Schema s = in.schema();
    PhysicalExpr x = col(s, 2);
    assertThat(run(in, call(s, WindowFunction.LAG, List.of(x), null, BIGINT)))
        .containsExactly(null, 5L, 3L, null, 7L, 1L, null, 4L, 6L);
    assertThat(run(in, call(s, WindowFunction.LAG, List.of(x, lit(2), lit(-1)), null, BIGINT)))
        .containsExactly(-1L, -1L, 5L, 3L, null, 7L, -1L, -1L, 4L);
    assertThat(run(in, call(s, WindowFunction.LEAD, List.of(x), null, BIGINT)))
        .containsExactly(3L, null, 7L, 1L, 2L, null, 6L, 8L, null);
  }

  @Test
  void valuesAndAggregatesOverTheDefaultRangeFrame() {
    BatchesExec in = input();
    Schema s = in.schema();
    List<PhysicalExpr> x = List.of(col(s, 2));
    assertThat(run(in, call(s, WindowFunction.FIRST_VALUE, x, null, BIGINT)))
        .containsExactly(5L, 5L, 5L, 5L, 5L, 5L, 4L, 4L, 4L);
    // RANGE ... CURRENT ROW ends at the last peer: rows 1 and 2 (o = 2) both see row 2's NULL.
    assertThat(run(in, call(s, WindowFunction.LAST_VALUE, x, null, BIGINT)))
        .containsExactly(5L, null, null, 7L, 1L, 2L, 4L, 6L, 8L);
    assertThat(run(in, call(s, WindowFunction.SUM, x, null, BIGINT)))
        .containsExactly(5L, 8L, 8L, 15L, 16L, 18L, 4L, 10L, 18L);
    assertThat(run(in, call(s, WindowFunction.COUNT, x, null, BIGINT)))
        .containsExactly(1L, 2L, 2L, 3L, 4L, 5L, 1L, 2L, 3L);
    assertThat(run(in, call(s, WindowFunction.AVG, x, null, DOUBLE)))
        .containsExactly(5.0, 4.0, 4.0, 5.0, 4.0, 3.6, 4.0, 5.0, 6.0);
  }

  @Test
  void rowsFrames() {
    BatchesExec in = input();
    Schema s = in.schema();
    List<PhysicalExpr> x = List.of(col(s, 2));
    WindowFrame around = rows(BoundKind.PRECEDING, 1, BoundKind.FOLLOWING, 1);
    assertThat(run(in, call(s, WindowFunction.COUNT, List.of(), around, BIGINT)))
        .containsExactly(2L, 3L, 3L, 3L, 3L, 2L, 2L, 3L, 2L);
    assertThat(run(in, call(s, WindowFunction.SUM, x, around, BIGINT)))
        .containsExactly(8L, 8L, 10L, 8L, 10L, 3L, 10L, 18L, 14L);
    WindowFrame all = rows(BoundKind.UNBOUNDED_PRECEDING, 0, BoundKind.UNBOUNDED_FOLLOWING, 0);
    assertThat(run(in, call(s, WindowFunction.AVG, x, all, DOUBLE)))
        .containsExactly(3.6, 3.6, 3.6, 3.6, 3.6, 3.6, 6.0, 6.0, 6.0);
    assertThat(
            run(
                in,
                call(
                    s,
                    WindowFunction.MIN,
                    x,
                    rows(BoundKind.PRECEDING, 2, BoundKind.CURRENT_ROW, 0),
                    BIGINT)))
        .containsExactly(5L, 3L, 3L, 3L, 1L, 1L, 4L, 4L, 4L);
    assertThat(
            run(
                in,
                call(
                    s,
                    WindowFunction.MAX,
                    x,
                    rows(BoundKind.CURRENT_ROW, 0, BoundKind.FOLLOWING, 2),
                    BIGINT)))
        .containsExactly(5L, 7L, 7L, 7L, 2L, 2L, 8L, 8L, 8L);
    // A frame entirely after the current row, empty at the end of each partition.
    WindowFrame ahead = rows(BoundKind.FOLLOWING, 1, BoundKind.FOLLOWING, 2);
    assertThat(run(in, call(s, WindowFunction.SUM, x, ahead, BIGINT)))
        .containsExactly(3L, 7L, 8L, 3L, 2L, null, 14L, 8L, null);
    assertThat(run(in, call(s, WindowFunction.FIRST_VALUE, x, ahead, BIGINT)))
        .containsExactly(3L, null, 7L, 1L, 2L, null, 6L, 8L, null);
  }

  @Test
  void rangeFramesWithOffsetsPeersAndNulls() {
    BatchesExec in = input();
    Schema s = in.schema();
    List<PhysicalExpr> x = List.of(col(s, 2));
    assertThat(
            run(
                in,
                call(
                    s,
                    WindowFunction.SUM,
                    x,
                    range(BoundKind.PRECEDING, 1, BoundKind.FOLLOWING, 1),
                    BIGINT)))
        .containsExactly(8L, 8L, 8L, 7L, 1L, 2L, 4L, 6L, 8L);
    assertThat(
            run(
                in,
                call(
                    s,
                    WindowFunction.SUM,
                    x,
                    range(BoundKind.PRECEDING, 10, BoundKind.CURRENT_ROW, 0),
                    BIGINT)))
        .containsExactly(5L, 8L, 8L, 15L, 16L, 2L, 4L, 10L, 14L);
    assertThat(
            run(
                in,
                call(
                    s,
                    WindowFunction.COUNT,
                    List.of(),
                    range(BoundKind.CURRENT_ROW, 0, BoundKind.UNBOUNDED_FOLLOWING, 0),
                    BIGINT)))
        .containsExactly(6L, 5L, 5L, 3L, 2L, 1L, 3L, 2L, 1L);
    assertThat(
            run(
                in,
                call(
                    s,
                    WindowFunction.MAX,
                    x,
                    range(BoundKind.PRECEDING, 3, BoundKind.PRECEDING, 1),
                    BIGINT)))
        .containsExactly(null, 5L, 5L, 5L, 7L, 2L, null, null, null);
  }

  @Test
  void withoutOrderByTheFrameIsThePartition() {
    BatchesExec in = input();
    Schema s = in.schema();
    WindowCall sum =
        new WindowCall(
            WindowFunction.SUM,
            List.of(col(s, 2)),
            List.of(col(s, 0)),
            List.of(),
            null,
            "sum",
            BIGINT);
    assertThat(run(in, sum)).containsExactly(18L, 18L, 18L, 18L, 18L, 18L, 18L, 18L, 18L);
    WindowCall rank =
        new WindowCall(WindowFunction.RANK, List.of(), List.of(), List.of(), null, "r", BIGINT);
    assertThat(run(in, rank)).containsOnly(1L);
    WindowCall maxP =
        new WindowCall(
            WindowFunction.MAX,
            List.of(col(s, 0)),
            List.of(),
            List.of(),
            null,
            "m",
            ArrowType.Utf8.INSTANCE);
    assertThat(run(in, maxP)).containsOnly("b");
  }

  @Test
  void descendingRangeDoublesDecimalsAndStrings() {
    VectorSchemaRoot b =
        batch(
            longs(allocator, "o", 30L, 20L, 20L, 10L, null),
            doubles(allocator, "x", 1.5, 2.5, 3.5, 4.5, 5.5),
            strings(allocator, "s", "d", "b", "c", "a", "e"),
            decimals(allocator, "m", 10, 2, "1.10", "2.20", "3.30", "4.40", null));
    BatchesExec in = new BatchesExec(b.getSchema(), List.of(List.of(b)));
    sources.add(in);
    Schema s = in.schema();
    List<SortField> desc = List.of(new SortField(col(s, 0), false, false));
    WindowCall sum =
        new WindowCall(
            WindowFunction.SUM,
            List.of(col(s, 1)),
            List.of(),
            desc,
            range(BoundKind.PRECEDING, 10, BoundKind.CURRENT_ROW, 0),
            "sum",
            DOUBLE);
    assertThat(run(in, sum)).containsExactly(1.5, 7.5, 7.5, 10.5, 5.5);
    WindowCall min =
        new WindowCall(
            WindowFunction.MIN,
            List.of(col(s, 2)),
            List.of(),
            desc,
            rows(BoundKind.UNBOUNDED_PRECEDING, 0, BoundKind.CURRENT_ROW, 0),
            "mn",
            ArrowType.Utf8.INSTANCE);
    assertThat(run(in, min)).containsExactly("d", "b", "b", "a", "a");
    WindowCall max =
        new WindowCall(
            WindowFunction.MAX,
            List.of(col(s, 2)),
            List.of(),
            desc,
            rows(BoundKind.PRECEDING, 1, BoundKind.FOLLOWING, 1),
            "mx",
            ArrowType.Utf8.INSTANCE);
    assertThat(run(in, max)).containsExactly("d", "d", "c", "e", "e");
    WindowCall dsum =
        new WindowCall(
            WindowFunction.SUM,
            List.of(col(s, 3)),
            List.of(),
            desc,
            null,
            "ds",
            new ArrowType.Decimal(38, 2, 128));
    assertThat(run(in, dsum))
        .usingElementComparator((a, c) -> ((BigDecimal) a).compareTo((BigDecimal) c))
        .containsExactly(
            new BigDecimal("1.10"),
            new BigDecimal("6.60"),
            new BigDecimal("6.60"),
            new BigDecimal("11.00"),
            new BigDecimal("11.00"));
  }

  @Test
  void emitsInputColumnsInBatchesAndHandlesEmptyInput() {
    BatchesExec in = input();
    Schema s = in.schema();
    WindowExec w =
        new WindowExec(
            in,
            List.of(
                call(s, WindowFunction.ROW_NUMBER, List.of(), null, BIGINT),
                call(s, WindowFunction.SUM, List.of(col(s, 2)), null, BIGINT)));
    assertThat(w.schema().getFields())
        .extracting(f -> f.getName())
        .containsExactly("p", "o", "x", "row_number", "sum");
    List<VectorSchemaRoot> batches = TestData.collectBatches(w, ctx(4));
    try {
      // Window partition "a" (6 rows) is emitted as soon as "b" starts, then "b" (3 rows).
      assertThat(batches).extracting(VectorSchemaRoot::getRowCount).containsExactly(4, 2, 3);
      assertThat(TestData.rows(batches.get(1)).get(0)).containsExactly("a", 7L, 1L, 5L, 16L);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    assertThat(w.displayDetails())
        .contains("ROW_NUMBER() OVER (PARTITION BY p@0 ORDER BY o@1 ASC NULLS LAST)");
    assertThat(w.outputPartitioning().partitionCount()).isEqualTo(1);

    VectorSchemaRoot empty = batch(longs(allocator, "o"));
    BatchesExec none = new BatchesExec(empty.getSchema(), List.of(List.of(empty)));
    sources.add(none);
    WindowExec w2 =
        new WindowExec(
            none,
            List.of(
                new WindowCall(
                    WindowFunction.ROW_NUMBER,
                    List.of(),
                    List.of(),
                    List.of(),
                    null,
                    "rn",
                    BIGINT)));
    assertThat(TestData.collect(w2, ctx(4))).isEmpty();
  }

  @Test
  void bufferingBeyondThePoolIsResourcesExhausted() {
    BatchesExec in = input();
    Schema s = in.schema();
    WindowExec w =
        new WindowExec(in, List.of(call(s, WindowFunction.ROW_NUMBER, List.of(), null, BIGINT)));
    assertThatThrownBy(() -> TestData.collect(w, TestData.context(allocator, 16, 4, null)))
        .isInstanceOf(ResourcesExhaustedException.class)
        .hasMessageContaining("WindowExec");
  }

  @Test
  void slidingFramesOverManyPartitionsMatchABruteForceScan() {
    int n = 120_000;
    java.util.Random r = new java.util.Random(7);
    Long[] p = new Long[n];
    Long[] x = new Long[n];
    long part = 0;
    for (int i = 0; i < n; i++) {
      if (r.nextInt(500) == 0) {
        part++;
      }
      p[i] = part;
      x[i] = r.nextInt(20) == 0 ? null : (long) r.nextInt(1_000_000);
    }
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int from = 0; from < n; from += 10_000) {
      batches.add(
          batch(
              longs(allocator, "p", Arrays.copyOfRange(p, from, from + 10_000)),
              longs(allocator, "x", Arrays.copyOfRange(x, from, from + 10_000))));
    }
    BatchesExec in = new BatchesExec(batches.get(0).getSchema(), List.of(batches));
    sources.add(in);
    Schema s = in.schema();
    WindowFrame frame = rows(BoundKind.PRECEDING, 5, BoundKind.FOLLOWING, 3);
    WindowExec w =
        new WindowExec(
            in,
            List.of(
                new WindowCall(
                    WindowFunction.MIN,
                    List.of(col(s, 1)),
                    List.of(col(s, 0)),
                    List.of(),
                    frame,
                    "mn",
                    BIGINT),
                new WindowCall(
                    WindowFunction.MAX,
                    List.of(col(s, 1)),
                    List.of(col(s, 0)),
                    List.of(),
                    frame,
                    "mx",
                    BIGINT),
                new WindowCall(
                    WindowFunction.SUM,
                    List.of(col(s, 1)),
                    List.of(col(s, 0)),
                    List.of(),
                    frame,
                    "sm",
                    BIGINT)));
    // The input (about 2 MB) exceeds the 1 MB pool: only complete window partitions are buffered.
    TaskContext ctx = TestData.context(allocator, 1L << 20, 8192, null);
    List<List<Object>> rows = TestData.collect(w, ctx);
    assertThat(rows).hasSize(n);
    assertThat(ctx.memoryPool().reserved()).isZero();
    int wrong = 0;
    for (int i = 0; i < n; i++) {
      Long mn = null;
      Long mx = null;
      Long sm = null;
      for (int j = Math.max(0, i - 5); j <= Math.min(n - 1, i + 3); j++) {
        if (p[j].equals(p[i]) && x[j] != null) {
          mn = mn == null ? x[j] : Math.min(mn, x[j]);
          mx = mx == null ? x[j] : Math.max(mx, x[j]);
          sm = sm == null ? x[j] : sm + x[j];
        }
      }
      List<Object> row = rows.get(i);
      if (!java.util.Objects.equals(row.get(2), mn)
          || !java.util.Objects.equals(row.get(3), mx)
          || !java.util.Objects.equals(row.get(4), sm)) {
        wrong++;
      }
    }
    assertThat(wrong).isZero();
  }
}
