package dev.quiver.binding.physical.join;

import static dev.quiver.binding.physical.sort.TestData.BIGINT;
import static dev.quiver.binding.physical.sort.TestData.DATE;
import static dev.quiver.binding.physical.sort.TestData.INT;
import static dev.quiver.binding.physical.sort.TestData.UTF8;
import static dev.quiver.binding.physical.sort.TestData.field;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.sort.MemorySourceExec;
import dev.quiver.binding.physical.sort.TestData;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiPredicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(60)
class JoinExecTest {
  private static final Schema LEFT =
      new Schema(List.of(field("lk", BIGINT), field("ls", UTF8), field("la", INT)));
  private static final Schema RIGHT =
      new Schema(List.of(field("rk", INT), field("rs", UTF8), field("rb", BIGINT)));

  /** la < rb over left ++ right columns. */
  private static final PhysicalExpr FILTER = new LessThanExpr(2, 5);

  private final BufferAllocator root = new RootAllocator();
  private final BufferAllocator query = root.newChildAllocator("query", 0, Long.MAX_VALUE);
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final List<MemorySourceExec> sources = new ArrayList<>();
  @TempDir Path spill;

  @AfterEach
  void close() {
    sources.forEach(MemorySourceExec::close);
    executor.shutdownNow();
    assertThat(query.getAllocatedMemory()).isZero();
    query.close();
    assertThat(root.getAllocatedMemory()).isZero();
    root.close();
  }

  private TaskContext ctx(int batchSize) {
    return TestData.context(query, Long.MAX_VALUE, batchSize, spill, executor);
  }

  private static ColumnExpr col(Schema s, int i) {
    Field f = s.getFields().get(i);
    return new ColumnExpr(i, f.getName(), f.getType(), true);
  }

  private static List<Object[]> rows(Random rnd, int n, boolean leftSide) {
    String[] strs = {"x", "y", "zz", null};
    List<Object[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Object k =
          rnd.nextInt(7) == 0
              ? null
              : (leftSide ? (Object) (long) rnd.nextInt(12) : (Object) rnd.nextInt(12));
      out.add(
          new Object[] {
            k,
            strs[rnd.nextInt(4)],
            leftSide ? (Object) rnd.nextInt(100) : (Object) (long) rnd.nextInt(100)
          });
    }
    return out;
  }

  /** Splits rows into partitions by {@code keyCols} (hash-partitioned) or round-robin when null. */
  private MemorySourceExec source(
      Schema schema, List<Object[]> rows, int parts, int[] keyCols, Random rnd) {
    List<List<Object[]>> split = new ArrayList<>();
    for (int p = 0; p < parts; p++) {
      split.add(new ArrayList<>());
    }
    for (int i = 0; i < rows.size(); i++) {
      Object[] r = rows.get(i);
      int p;
      if (keyCols == null) {
        p = i % parts;
      } else {
        Object[] key = new Object[keyCols.length];
        for (int k = 0; k < keyCols.length; k++) {
          key[k] = normalize(r[keyCols[k]]);
        }
        p = Math.floorMod(Arrays.hashCode(key), parts);
      }
      split.get(p).add(r);
    }
    List<List<VectorSchemaRoot>> partitions = new ArrayList<>();
    for (List<Object[]> part : split) {
      List<VectorSchemaRoot> batches = new ArrayList<>();
      int i = 0;
      while (i < part.size()) {
        int n = Math.min(part.size() - i, 1 + rnd.nextInt(60));
        batches.add(TestData.batch(schema, root, part.subList(i, i + n)));
        i += n;
      }
      partitions.add(batches);
    }
    MemorySourceExec src = new MemorySourceExec(schema, partitions);
    sources.add(src);
    return src;
  }

  private static Object normalize(Object o) {
    return o instanceof Number n && !(o instanceof BigDecimal) ? (Object) n.longValue() : o;
  }

  /** Naive reference join over Java rows. */
  static List<String> reference(
      List<Object[]> left,
      List<Object[]> right,
      int[] lk,
      int[] rk,
      JoinType type,
      BiPredicate<Object[], Object[]> filter,
      boolean nullEqualsNull,
      int leftWidth,
      int rightWidth) {
    List<String> out = new ArrayList<>();
    boolean[] rightMatched = new boolean[right.size()];
    for (Object[] l : left) {
      boolean matched = false;
      for (int j = 0; j < right.size(); j++) {
        Object[] r = right.get(j);
        boolean eq = true;
        for (int k = 0; k < lk.length && eq; k++) {
          Object a = normalize(l[lk[k]]);
          Object b = normalize(r[rk[k]]);
          eq = a == null || b == null ? a == null && b == null && nullEqualsNull : a.equals(b);
        }
        if (eq && (filter == null || filter.test(l, r))) {
          matched = true;
          rightMatched[j] = true;
          if (type != JoinType.SEMI && type != JoinType.ANTI) {
            out.add(concat(l, r).toString());
          }
        }
      }
      if ((type == JoinType.SEMI && matched) || (type == JoinType.ANTI && !matched)) {
        out.add(Arrays.asList(l).toString());
      }
      if (!matched && (type == JoinType.LEFT || type == JoinType.FULL)) {
        out.add(concat(l, new Object[rightWidth]).toString());
      }
    }
    if (type == JoinType.RIGHT || type == JoinType.FULL) {
      for (int j = 0; j < right.size(); j++) {
        if (!rightMatched[j]) {
          out.add(concat(new Object[leftWidth], right.get(j)).toString());
        }
      }
    }
    return out.stream().sorted().toList();
  }

  private static List<Object> concat(Object[] a, Object[] b) {
    List<Object> out = new ArrayList<>(Arrays.asList(a));
    out.addAll(Arrays.asList(b));
    return out;
  }

  private static final BiPredicate<Object[], Object[]> LESS =
      (l, r) ->
          l[2] != null && r[2] != null && ((Number) l[2]).longValue() < ((Number) r[2]).longValue();

  private static List<String> sortedStrings(List<List<Object>> rows) {
    return rows.stream().map(Object::toString).sorted().toList();
  }

  /** Drains all partitions concurrently, as a real consumer would. */
  private List<List<Object>> collectConcurrently(ExecutionPlan plan, TaskContext ctx)
      throws Exception {
    List<Future<List<List<Object>>>> futures = new ArrayList<>();
    for (int p = 0; p < plan.partitionCount(); p++) {
      int part = p;
      futures.add(executor.submit(() -> TestData.drain(plan.execute(part, ctx))));
    }
    List<List<Object>> out = new ArrayList<>();
    for (Future<List<List<Object>>> f : futures) {
      out.addAll(f.get());
    }
    return out;
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (JoinType type : JoinType.values()) {
      for (PartitionMode mode : PartitionMode.values()) {
        for (boolean multiKey : new boolean[] {false, true}) {
          for (boolean filter : new boolean[] {false, true}) {
            for (boolean nullEq : new boolean[] {false, true}) {
              out.add(Arguments.of(type, mode, multiKey, filter, nullEq, false));
              if (type == JoinType.SEMI || type == JoinType.ANTI) {
                out.add(Arguments.of(type, mode, multiKey, filter, nullEq, true));
              }
            }
          }
        }
      }
    }
    return out.stream();
  }

  /**
   * An INNER join's projection emits exactly the listed columns of the rows the whole join emits,
   * in memory and spilling, with keys that are NULL or match many rows.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(PartitionMode.class)
  void anInnerJoinsProjectionEmitsTheListedColumnsOfEveryMatch(PartitionMode mode)
      throws Exception {
    Random rnd = new Random(mode.ordinal() + 41);
    List<Object[]> l = manyKeyRows(rnd, 1500, true);
    List<Object[]> r = manyKeyRows(rnd, 1800, false);
    boolean partitioned = mode == PartitionMode.PARTITIONED;
    int[] lk = {0};
    List<PhysicalExpr> leftKeys = List.of(col(LEFT, 0));
    List<PhysicalExpr> rightKeys = List.of(col(RIGHT, 0));
    int width = LEFT.getFields().size();
    // A right column, then a left one; both keys dropped.
    int[] projection = {width + 2, 1};
    java.util.function.Function<int[], HashJoinExec> join =
        columns -> {
          // Fresh sources: a memory source runs each partition once.
          Random split = new Random(3);
          return new HashJoinExec(
              source(LEFT, l, partitioned ? 3 : 2, partitioned ? lk : null, split),
              source(RIGHT, r, 3, partitioned ? lk : null, split),
              leftKeys,
              rightKeys,
              JoinType.INNER,
              null,
              mode,
              false,
              false,
              columns);
        };
    HashJoinExec some = join.apply(projection);
    HashJoinExec all = join.apply(null);
    assertThat(some.schema().getFields())
        .containsExactly(all.schema().getFields().get(width + 2), all.schema().getFields().get(1));
    assertThat(some.displayDetails()).contains("projection=[rb, ls]");
    for (int run = 0; run < 3; run++) {
      TaskContext c =
          run == 0 ? ctx(29) : spillCtx(24 << 10, run == 1 ? 29 : 1024, run == 1 ? 2 : 16);
      List<String> expected =
          TestData.collect(join.apply(null), c).stream()
              .map(row -> java.util.Arrays.asList(row.get(width + 2), row.get(1)).toString())
              .sorted()
              .toList();
      assertThat(expected).isNotEmpty();
      TaskContext c2 =
          run == 0 ? ctx(29) : spillCtx(24 << 10, run == 1 ? 29 : 1024, run == 1 ? 2 : 16);
      HashJoinExec projected = join.apply(projection);
      assertThat(sortedStrings(TestData.collect(projected, c2))).isEqualTo(expected);
      if (run > 0) {
        assertThat(projected.metrics().spilledBytes()).isPositive();
      }
    }
    ExecutionPlan left = some.left();
    ExecutionPlan right = some.right();
    // Only an INNER join without a residual filter projects.
    assertThatThrownBy(
            () ->
                new HashJoinExec(
                    left,
                    right,
                    leftKeys,
                    rightKeys,
                    JoinType.LEFT,
                    null,
                    mode,
                    false,
                    false,
                    projection))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new HashJoinExec(
                    left,
                    right,
                    leftKeys,
                    rightKeys,
                    JoinType.INNER,
                    null,
                    mode,
                    false,
                    false,
                    new int[] {1, 1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("distinct");
  }

  static Stream<Arguments> markCases() {
    List<Arguments> out = new ArrayList<>();
    for (JoinType type : new JoinType[] {JoinType.SEMI, JoinType.ANTI}) {
      for (boolean multiKey : new boolean[] {false, true}) {
        for (boolean filter : new boolean[] {false, true}) {
          for (boolean nullEq : new boolean[] {false, true}) {
            out.add(Arguments.of(type, multiKey, filter, nullEq));
          }
        }
      }
    }
    return out.stream();
  }

  /**
   * Marks emitted per partition and merged keep the rows a SEMI (ANTI) join keeps: every partition
   * of the right input marks its own copy of the left input, sorted on all columns so that the
   * copies agree row by row (the left rows repeat: 300 rows over 12 keys, 4 strings, 100 values).
   */
  @ParameterizedTest(name = "{0} multiKey={1} filter={2} nullEqualsNull={3}")
  @MethodSource("markCases")
  void marksMergedAcrossPartitionsMatchReference(
      JoinType type, boolean multiKey, boolean filter, boolean nullEq) throws Exception {
    Random rnd = new Random(type.ordinal() * 7 + (multiKey ? 1 : 0) + (filter ? 2 : 0));
    List<Object[]> l = rows(rnd, 300, true);
    l.addAll(l.subList(0, 40)); // exact duplicates too
    List<Object[]> r = rows(rnd, 400, false);
    int[] keys = multiKey ? new int[] {0, 1} : new int[] {0};
    List<PhysicalExpr> leftKeys = new ArrayList<>();
    List<PhysicalExpr> rightKeys = new ArrayList<>();
    for (int k : keys) {
      leftKeys.add(col(LEFT, k));
      rightKeys.add(col(RIGHT, k));
    }
    ExecutionPlan gathered =
        new dev.quiver.binding.physical.exchange.CoalescePartitionsExec(
            source(LEFT, l, 3, null, rnd));
    List<dev.quiver.binding.physical.SortField> all = new ArrayList<>();
    for (int i = 0; i < LEFT.getFields().size(); i++) {
      all.add(new dev.quiver.binding.physical.SortField(col(LEFT, i), true, true));
    }
    ExecutionPlan sorted = new dev.quiver.binding.physical.sort.SortExec(gathered, all, -1, false);
    HashJoinExec marking =
        HashJoinExec.emittingMarks(
            sorted,
            source(RIGHT, r, 5, null, rnd),
            leftKeys,
            rightKeys,
            type,
            filter ? FILTER : null,
            nullEq);
    assertThat(marking.schema().getFields()).hasSize(4);
    assertThat(marking.partitionCount()).isEqualTo(5);
    MarkMergeExec merge = new MarkMergeExec(marking, type);
    List<String> expected = reference(l, r, keys, keys, type, filter ? LESS : null, nullEq, 3, 3);
    assertThat(sortedStrings(TestData.collect(merge, ctx(37)))).isEqualTo(expected);
    assertThat(sortedStrings(TestData.collect(merge, ctx(1)))).isEqualTo(expected);
    // Every partition lists all the left rows, each with its own mark.
    List<List<Object>> marks = TestData.collect(marking, ctx(64));
    assertThat(marks).hasSize(5 * l.size());
  }

  @Test
  void marksOfPartitionsListingDifferentRowsAreRefused() {
    Schema marked =
        new Schema(List.of(field("k", INT), field(HashJoinExec.MARK_COLUMN, TestData.BOOL)));
    List<List<VectorSchemaRoot>> partitions = new ArrayList<>();
    partitions.add(
        List.of(TestData.batch(marked, root, List.<Object[]>of(new Object[] {1, true}))));
    partitions.add(
        List.of(
            TestData.batch(
                marked,
                root,
                List.<Object[]>of(new Object[] {1, false}, new Object[] {2, false}))));
    MemorySourceExec src = new MemorySourceExec(marked, partitions);
    sources.add(src);
    assertThatThrownBy(() -> TestData.collect(new MarkMergeExec(src, JoinType.SEMI), ctx(8)))
        .hasMessageContaining("must see the same build input");
  }

  @ParameterizedTest(name = "{0} {1} multiKey={2} filter={3} nullEqualsNull={4} semiBuildsLeft={5}")
  @MethodSource("cases")
  void hashJoinMatchesReference(
      JoinType type,
      PartitionMode mode,
      boolean multiKey,
      boolean filter,
      boolean nullEq,
      boolean semiBuildsLeft)
      throws Exception {
    Random rnd = new Random(type.ordinal() * 31 + mode.ordinal());
    List<Object[]> l = rows(rnd, 300, true);
    List<Object[]> r = rows(rnd, 400, false);
    int[] lk = multiKey ? new int[] {0, 1} : new int[] {0};
    int[] rk = lk;
    boolean partitioned = mode == PartitionMode.PARTITIONED;
    ExecutionPlan left = source(LEFT, l, partitioned ? 4 : 3, partitioned ? lk : null, rnd);
    ExecutionPlan right = source(RIGHT, r, partitioned ? 4 : 5, partitioned ? rk : null, rnd);
    List<PhysicalExpr> leftKeys = new ArrayList<>();
    List<PhysicalExpr> rightKeys = new ArrayList<>();
    for (int k : lk) {
      leftKeys.add(col(LEFT, k));
      rightKeys.add(col(RIGHT, k));
    }
    HashJoinExec join =
        new HashJoinExec(
            left,
            right,
            leftKeys,
            rightKeys,
            type,
            filter ? FILTER : null,
            mode,
            nullEq,
            semiBuildsLeft);
    List<String> expected = reference(l, r, lk, rk, type, filter ? LESS : null, nullEq, 3, 3);

    assertThat(join.schema().getFields())
        .hasSize(type == JoinType.SEMI || type == JoinType.ANTI ? 3 : 6);
    // One execution (context) per run: a partition runs at most once per execution.
    assertThat(sortedStrings(TestData.collect(join, ctx(37)))).isEqualTo(expected);
    assertThat(sortedStrings(collectConcurrently(join, ctx(37)))).isEqualTo(expected);
    assertThat(join.metrics().outputRows()).isEqualTo(2L * expected.size());
  }

  @Test
  void outputBatchesStayNearTheBatchSizeWithManyDuplicates() {
    Random rnd = new Random(1);
    List<Object[]> l = new ArrayList<>();
    List<Object[]> r = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      l.add(new Object[] {1L, "a", i});
      r.add(new Object[] {1, "b", (long) i});
    }
    HashJoinExec join =
        new HashJoinExec(
            source(LEFT, l, 1, null, rnd),
            source(RIGHT, r, 1, null, rnd),
            List.of(col(LEFT, 0)),
            List.of(col(RIGHT, 0)),
            JoinType.INNER,
            null,
            PartitionMode.COLLECT_BUILD,
            false);
    long rows = 0;
    try (BatchStream s = join.execute(0, ctx(1000))) {
      VectorSchemaRoot next;
      while ((next = s.next()) != null) {
        try (VectorSchemaRoot b = next) {
          assertThat(b.getRowCount()).isBetween(1, 1000);
          rows += b.getRowCount();
        }
      }
    }
    assertThat(rows).isEqualTo(250_000);
  }

  @Test
  void emptySides() {
    Random rnd = new Random(2);
    List<Object[]> some = rows(rnd, 50, true);
    List<Object[]> someRight = rows(rnd, 50, false);
    for (JoinType type : JoinType.values()) {
      for (PartitionMode mode : PartitionMode.values()) {
        for (int emptySide = 0; emptySide < 3; emptySide++) {
          List<Object[]> l = emptySide == 0 || emptySide == 2 ? List.of() : some;
          List<Object[]> r = emptySide == 1 || emptySide == 2 ? List.of() : someRight;
          boolean semi = type == JoinType.SEMI || type == JoinType.ANTI;
          for (boolean buildsLeft : semi ? new boolean[] {false, true} : new boolean[] {false}) {
            HashJoinExec join =
                new HashJoinExec(
                    source(LEFT, l, 2, new int[] {0}, rnd),
                    source(RIGHT, r, 2, new int[] {0}, rnd),
                    List.of(col(LEFT, 0)),
                    List.of(col(RIGHT, 0)),
                    type,
                    FILTER,
                    mode,
                    false,
                    buildsLeft);
            List<String> expected =
                reference(l, r, new int[] {0}, new int[] {0}, type, LESS, false, 3, 3);
            assertThat(sortedStrings(TestData.collect(join, ctx(16))))
                .as("%s %s empty=%d semiBuildsLeft=%s", type, mode, emptySide, buildsLeft)
                .isEqualTo(expected);
          }
        }
      }
    }
  }

  @Test
  void paddedSidesBecomeNullableInSchemaAndVectors() {
    Random rnd = new Random(12);
    Schema strict =
        new Schema(
            List.of(
                new Field(
                    "k", org.apache.arrow.vector.types.pojo.FieldType.notNullable(BIGINT), null),
                new Field(
                    "s", org.apache.arrow.vector.types.pojo.FieldType.notNullable(UTF8), null),
                new Field(
                    "v", org.apache.arrow.vector.types.pojo.FieldType.notNullable(INT), null)));
    List<Object[]> l = new ArrayList<>();
    List<Object[]> r = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      l.add(new Object[] {(long) (i % 10), "l" + i, i});
      r.add(new Object[] {(long) (i % 10 + 5), "r" + i, i});
    }
    HashJoinExec join =
        new HashJoinExec(
            source(strict, l, 2, null, rnd),
            source(strict, r, 2, null, rnd),
            List.of(col(strict, 0)),
            List.of(col(strict, 0)),
            JoinType.FULL,
            null,
            PartitionMode.COLLECT_BUILD,
            false);
    assertThat(join.schema().getFields()).allMatch(Field::isNullable);
    TaskContext ctx = ctx(16);
    int rows = 0;
    for (int p = 0; p < join.partitionCount(); p++) {
      try (BatchStream s = join.execute(p, ctx)) {
        VectorSchemaRoot next;
        while ((next = s.next()) != null) {
          try (VectorSchemaRoot b = next) {
            assertThat(b.getSchema()).isEqualTo(join.schema());
            b.getFieldVectors().forEach(v -> assertThat(v.getField().isNullable()).isTrue());
            rows += b.getRowCount();
          }
        }
      }
    }
    assertThat(rows)
        .isEqualTo(
            reference(l, r, new int[] {0}, new int[] {0}, JoinType.FULL, null, false, 3, 3).size());
  }

  /**
   * One side's keys take a few values spread over a wide range, the other's most values of it: a
   * hash join building on the sparse side rules out most probe rows by its key bitmap, and every
   * join type still gives the reference's rows, with the bitmap and without.
   */
  @ParameterizedTest(name = "{0} {1} multiKey={2} filter={3} nullEqualsNull={4} semiBuildsLeft={5}")
  @MethodSource("cases")
  void keyBitmapRulesOutOnlyProbeRowsWithoutPartner(
      JoinType type,
      PartitionMode mode,
      boolean multiKey,
      boolean filter,
      boolean nullEq,
      boolean semiBuildsLeft)
      throws Exception {
    for (boolean sparseLeft : new boolean[] {true, false}) {
      Random rnd = new Random(type.ordinal() * 131 + mode.ordinal() * 7 + (sparseLeft ? 1 : 0));
      long[] sparse = {-5, 3, 40, 41, 900};
      List<Object[]> l = rows(rnd, 300, true);
      List<Object[]> r = rows(rnd, 400, false);
      for (Object[] row : sparseLeft ? l : r) {
        if (row[0] != null) {
          long k = sparse[rnd.nextInt(sparse.length)];
          row[0] = sparseLeft ? (Object) k : (Object) (int) k;
        }
      }
      for (Object[] row : sparseLeft ? r : l) {
        if (row[0] != null) {
          int k = rnd.nextInt(1000) - 10;
          row[0] = sparseLeft ? (Object) k : (Object) (long) k;
        }
      }
      // With two keys the string comes first: the bitmap covers the second.
      int[] keys = multiKey ? new int[] {1, 0} : new int[] {0};
      boolean partitioned = mode == PartitionMode.PARTITIONED;
      ExecutionPlan left = source(LEFT, l, partitioned ? 4 : 3, partitioned ? keys : null, rnd);
      ExecutionPlan right = source(RIGHT, r, partitioned ? 4 : 2, partitioned ? keys : null, rnd);
      List<PhysicalExpr> leftKeys = new ArrayList<>();
      List<PhysicalExpr> rightKeys = new ArrayList<>();
      for (int k : keys) {
        leftKeys.add(col(LEFT, k));
        rightKeys.add(col(RIGHT, k));
      }
      List<String> expected = reference(l, r, keys, keys, type, filter ? LESS : null, nullEq, 3, 3);
      boolean semi = type == JoinType.SEMI || type == JoinType.ANTI;
      boolean buildLeft = !semi || semiBuildsLeft;
      boolean dropsUnmatchedProbe =
          buildLeft ? type != JoinType.RIGHT && type != JoinType.FULL : type == JoinType.SEMI;
      boolean sparseBuild = buildLeft == sparseLeft;
      for (boolean bitmap : new boolean[] {true, false}) {
        for (int batchSize : new int[] {37, 3}) {
          HashJoinExec join =
              new HashJoinExec(
                  left,
                  right,
                  leftKeys,
                  rightKeys,
                  type,
                  filter ? FILTER : null,
                  mode,
                  nullEq,
                  semiBuildsLeft);
          TaskContext ctx = ctx(batchSize);
          ctx.config().set(BindingSettings.JOIN_KEY_BITMAP.key(), Boolean.toString(bitmap));
          assertThat(sortedStrings(collectConcurrently(join, ctx)))
              .as("sparseLeft=%s bitmap=%s batchSize=%s", sparseLeft, bitmap, batchSize)
              .isEqualTo(expected);
          if (!bitmap || !dropsUnmatchedProbe) {
            assertThat(join.metrics().ruledOutRows())
                .as("sparseLeft=%s bitmap=%s", sparseLeft, bitmap)
                .isZero();
          } else if (sparseBuild) {
            assertThat(join.metrics().ruledOutRows()).as("sparseLeft=%s", sparseLeft).isPositive();
          }
        }
      }
    }
  }

  @Test
  void keyBitmapSkipsKeysOfWideRangeOrNotIntegers() {
    try (VectorSchemaRoot wide =
            TestData.batch(
                LEFT,
                root,
                List.of(
                    new Object[] {0L, "a", 1},
                    new Object[] {Long.MAX_VALUE, "b", 2},
                    new Object[] {null, "c", 3}));
        VectorSchemaRoot huge =
            TestData.batch(
                LEFT, root, List.of(new Object[] {0L, "a", 1}, new Object[] {1L << 40, "b", 2}))) {
      for (VectorSchemaRoot b : List.of(wide, huge)) {
        JoinKeys keys = JoinKeys.extract(b, List.of(col(LEFT, 0)), query);
        assertThat(KeyBitmap.of(keys, List.of(col(RIGHT, 0)))).isNull();
      }
      JoinKeys strings = JoinKeys.extract(wide, List.of(col(LEFT, 1)), query);
      assertThat(KeyBitmap.of(strings, List.of(col(RIGHT, 1)))).isNull();
      JoinKeys both = JoinKeys.extract(wide, List.of(col(LEFT, 1), col(LEFT, 2)), query);
      KeyBitmap onSecond = KeyBitmap.of(both, List.of(col(RIGHT, 1), col(RIGHT, 2)));
      assertThat(onSecond).isNotNull();
      assertThat(onSecond.heapBytes()).isEqualTo(8);
    }
  }

  @Test
  void decimalDateAndStringKeys() {
    Schema ls =
        new Schema(List.of(field("d", TestData.decimal(2)), field("dt", DATE), field("s", UTF8)));
    Schema rs =
        new Schema(List.of(field("s", UTF8), field("d", TestData.decimal(2)), field("dt", DATE)));
    Random rnd = new Random(9);
    BigDecimal big = new BigDecimal("123456789012345678901234567.89");
    List<Object[]> l = new ArrayList<>();
    List<Object[]> r = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      BigDecimal d =
          rnd.nextInt(5) == 0
              ? big.add(BigDecimal.valueOf(rnd.nextInt(3)))
              : BigDecimal.valueOf(rnd.nextInt(20) - 10, 2);
      LocalDate dt = LocalDate.of(2024, 1, 1).plusDays(rnd.nextInt(3));
      String s = "k" + rnd.nextInt(4) + "\u00e9";
      l.add(new Object[] {rnd.nextInt(9) == 0 ? null : d, dt, s});
      BigDecimal d2 =
          rnd.nextInt(5) == 0
              ? big.add(BigDecimal.valueOf(rnd.nextInt(3)))
              : BigDecimal.valueOf(rnd.nextInt(20) - 10, 2);
      r.add(
          new Object[] {
            "k" + rnd.nextInt(4) + "\u00e9", d2, LocalDate.of(2024, 1, 1).plusDays(rnd.nextInt(3))
          });
    }
    List<PhysicalExpr> lkeys = List.of(col(ls, 0), col(ls, 1), col(ls, 2));
    List<PhysicalExpr> rkeys = List.of(col(rs, 1), col(rs, 2), col(rs, 0));
    for (JoinType type : List.of(JoinType.INNER, JoinType.FULL, JoinType.ANTI)) {
      HashJoinExec join =
          new HashJoinExec(
              source(ls, l, 2, null, rnd),
              source(rs, r, 3, null, rnd),
              lkeys,
              rkeys,
              type,
              null,
              PartitionMode.COLLECT_BUILD,
              false);
      List<String> expected =
          reference(l, r, new int[] {0, 1, 2}, new int[] {1, 2, 0}, type, null, false, 3, 3);
      assertThat(sortedStrings(TestData.collect(join, ctx(64)))).as("%s", type).isEqualTo(expected);
    }
  }

  /**
   * A context whose memory pool holds {@code pool} bytes and whose spilling joins split {@code
   * fanout} ways.
   */
  private TaskContext spillCtx(long pool, int batchSize, int fanout) {
    SessionConfig config = new SessionConfig().withBatchSize(batchSize).withSpillDirectory(spill);
    config.set(BindingSettings.JOIN_SPILL_PARTITIONS.key(), Integer.toString(fanout));
    return new TaskContext("test", query, new MemoryPool(pool), config, executor);
  }

  /** Rows as {@link #rows} but over 600 keys, so that spilled partitions split further. */
  private static List<Object[]> manyKeyRows(Random rnd, int n, boolean leftSide) {
    List<Object[]> out = rows(rnd, n, leftSide);
    for (Object[] row : out) {
      if (row[0] != null) {
        int k = rnd.nextInt(600);
        row[0] = leftSide ? (Object) (long) k : (Object) k;
      }
    }
    return out;
  }

  private long spillFiles() throws IOException {
    try (Stream<Path> files = Files.list(spill)) {
      return files.count();
    }
  }

  @ParameterizedTest(name = "{0} {1} multiKey={2} filter={3} nullEqualsNull={4} semiBuildsLeft={5}")
  @MethodSource("cases")
  void hashJoinThatSpillsMatchesReference(
      JoinType type,
      PartitionMode mode,
      boolean multiKey,
      boolean filter,
      boolean nullEq,
      boolean semiBuildsLeft)
      throws Exception {
    // A shared build whose rows' matches merge across output partitions stays in memory; the
    // planner never collects such a build (LEFT, FULL, SEMI/ANTI built on the left).
    assumeFalse(
        mode == PartitionMode.COLLECT_BUILD
            && (type == JoinType.LEFT || type == JoinType.FULL || semiBuildsLeft));
    Random rnd = new Random(type.ordinal() * 31 + mode.ordinal() + 7);
    List<Object[]> l = manyKeyRows(rnd, 1500, true);
    List<Object[]> r = manyKeyRows(rnd, 1800, false);
    int[] lk = multiKey ? new int[] {0, 1} : new int[] {0};
    boolean partitioned = mode == PartitionMode.PARTITIONED;
    ExecutionPlan left = source(LEFT, l, partitioned ? 3 : 2, partitioned ? lk : null, rnd);
    ExecutionPlan right = source(RIGHT, r, 3, partitioned ? lk : null, rnd);
    List<PhysicalExpr> leftKeys = new ArrayList<>();
    List<PhysicalExpr> rightKeys = new ArrayList<>();
    for (int k : lk) {
      leftKeys.add(col(LEFT, k));
      rightKeys.add(col(RIGHT, k));
    }
    HashJoinExec join =
        new HashJoinExec(
            left,
            right,
            leftKeys,
            rightKeys,
            type,
            filter ? FILTER : null,
            mode,
            nullEq,
            semiBuildsLeft);
    List<String> expected = reference(l, r, lk, lk, type, filter ? LESS : null, nullEq, 3, 3);

    // The build side (tens of KB) is several times the pool: it spills, and with a fan-out of 2
    // its partitions split again.
    for (int fanout : new int[] {2, 16}) {
      for (int batchSize : new int[] {29, 1024}) {
        long spilledBefore = join.metrics().spilledBytes();
        TaskContext c = spillCtx(24 << 10, batchSize, fanout);
        assertThat(sortedStrings(TestData.collect(join, c)))
            .as("fan-out %d, batch size %d", fanout, batchSize)
            .isEqualTo(expected);
        assertThat(join.metrics().spilledBytes()).isGreaterThan(spilledBefore);
        assertThat(c.memoryPool().reserved()).isZero();
        assertThat(spillFiles()).isZero();
      }
    }
    TaskContext c = spillCtx(48 << 10, 64, 4);
    assertThat(sortedStrings(collectConcurrently(join, c))).isEqualTo(expected);
    assertThat(c.memoryPool().reserved()).isZero();
    assertThat(spillFiles()).isZero();
  }

  @Test
  void closingASpillingJoinMidwayDeletesItsFiles() throws IOException {
    Random rnd = new Random(14);
    List<Object[]> l = manyKeyRows(rnd, 3000, true);
    List<Object[]> r = manyKeyRows(rnd, 3000, false);
    HashJoinExec join =
        new HashJoinExec(
            source(LEFT, l, 1, null, rnd),
            source(RIGHT, r, 1, null, rnd),
            List.of(col(LEFT, 0)),
            List.of(col(RIGHT, 0)),
            JoinType.FULL,
            null,
            PartitionMode.PARTITIONED,
            false);
    TaskContext c = spillCtx(8 << 10, 16, 4);
    try (BatchStream s = join.execute(0, c)) {
      s.next().close();
      assertThat(spillFiles()).isPositive();
    }
    assertThat(spillFiles()).isZero();
    assertThat(c.memoryPool().reserved()).isZero();
  }

  @Test
  void buildSideWhoseRowsShareOneKeyFailsNamingTheJoinAfterSplitting() throws IOException {
    Random rnd = new Random(4);
    List<Object[]> l = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      l.add(new Object[] {5L, "s" + i, i});
    }
    List<Object[]> r = rows(rnd, 10, false);
    r.add(new Object[] {5, "x", 1L});
    HashJoinExec join =
        new HashJoinExec(
            source(LEFT, l, 2, null, rnd),
            source(RIGHT, r, 2, null, rnd),
            List.of(col(LEFT, 0)),
            List.of(col(RIGHT, 0)),
            JoinType.INNER,
            null,
            PartitionMode.COLLECT_BUILD,
            false);
    TaskContext small = spillCtx(4096, 100, 4);
    assertThatThrownBy(() -> TestData.collect(join, small))
        .isInstanceOf(ResourcesExhaustedException.class)
        .hasMessageContaining("HashJoinExec(INNER")
        .hasMessageContaining("share a join key");
    // The shared build's files go when the execution ends (other partitions might still read them).
    small.close();
    assertThat(small.memoryPool().reserved()).isZero();
    assertThat(spillFiles()).isZero();
  }

  @Test
  void incompatibleKeyTypesAreRejected() {
    Random rnd = new Random(5);
    assertThatThrownBy(
            () ->
                new HashJoinExec(
                    source(LEFT, List.of(), 1, null, rnd),
                    source(RIGHT, List.of(), 1, null, rnd),
                    List.of(col(LEFT, 0)),
                    List.of(col(RIGHT, 1)),
                    JoinType.INNER,
                    null,
                    PartitionMode.COLLECT_BUILD,
                    false))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("cast one side");
  }

  @Test
  void outputPartitioningFollowsTheMode() {
    Random rnd = new Random(6);
    ExecutionPlan l = source(LEFT, List.of(), 4, null, rnd);
    ExecutionPlan r = source(RIGHT, List.of(), 4, null, rnd);
    HashJoinExec inner =
        new HashJoinExec(
            l,
            r,
            List.of(col(LEFT, 0)),
            List.of(col(RIGHT, 0)),
            JoinType.INNER,
            null,
            PartitionMode.PARTITIONED,
            false);
    assertThat(inner.partitionCount()).isEqualTo(4);
    assertThat(inner.outputPartitioning().hashExprs()).containsExactly(col(LEFT, 0));
    HashJoinExec rightJoin = (HashJoinExec) inner.withNewChildren(List.of(l, r));
    assertThat(rightJoin.displayDetails()).contains("INNER");
    ExecutionPlan r2 = source(RIGHT, List.of(), 2, null, rnd);
    HashJoinExec semi =
        new HashJoinExec(
            l,
            r2,
            List.of(col(LEFT, 0)),
            List.of(col(RIGHT, 0)),
            JoinType.SEMI,
            null,
            PartitionMode.COLLECT_BUILD,
            false);
    assertThat(semi.partitionCount()).isEqualTo(4);
    HashJoinExec full =
        new HashJoinExec(
            l,
            r2,
            List.of(col(LEFT, 0)),
            List.of(col(RIGHT, 0)),
            JoinType.FULL,
            null,
            PartitionMode.COLLECT_BUILD,
            false);
    assertThat(full.partitionCount()).isEqualTo(2);
    assertThat(full.schema().getFields()).allMatch(Field::isNullable);
    assertThatThrownBy(
            () ->
                new HashJoinExec(
                    l,
                    r2,
                    List.of(col(LEFT, 0)),
                    List.of(col(RIGHT, 0)),
                    JoinType.INNER,
                    null,
                    PartitionMode.PARTITIONED,
                    false))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest(name = "{0} filter={1}")
  @MethodSource("nestedLoopCases")
  void nestedLoopJoinMatchesReference(JoinType type, boolean filter) throws Exception {
    Random rnd = new Random(type.ordinal());
    List<Object[]> l = rows(rnd, 60, true);
    List<Object[]> r = rows(rnd, 80, false);
    NestedLoopJoinExec join =
        new NestedLoopJoinExec(
            source(LEFT, l, 3, null, rnd),
            source(RIGHT, r, 2, null, rnd),
            type,
            filter ? FILTER : null);
    List<String> expected =
        reference(l, r, new int[0], new int[0], type, filter ? LESS : null, false, 3, 3);
    assertThat(join.partitionCount()).isEqualTo(2);
    assertThat(sortedStrings(TestData.collect(join, ctx(50)))).isEqualTo(expected);
    assertThat(sortedStrings(collectConcurrently(join, ctx(50)))).isEqualTo(expected);
  }

  static Stream<Arguments> nestedLoopCases() {
    List<Arguments> out = new ArrayList<>();
    for (JoinType type : JoinType.values()) {
      out.add(Arguments.of(type, true));
      out.add(Arguments.of(type, false));
    }
    return out.stream();
  }

  /**
   * Regression: a nested-loop join whose condition keeps no pair added no output, and its stream
   * never looked at cancellation, so a cancelled cross join of large inputs held its task slot to
   * the end (and an executor draining on SIGTERM waited for it).
   */
  @Test
  void nestedLoopJoinKeepingNoPairStopsWhenCancelled() throws Exception {
    Random rnd = new Random(11);
    // One right batch: the join steps through its 15M pairs without asking its inputs for more.
    MemorySourceExec right =
        new MemorySourceExec(
            RIGHT, List.of(List.of(TestData.batch(RIGHT, root, rows(rnd, 3000, false)))));
    sources.add(right);
    NestedLoopJoinExec join =
        new NestedLoopJoinExec(
            source(LEFT, rows(rnd, 5000, true), 1, null, rnd),
            right,
            JoinType.INNER,
            new LessThanExpr(2, 2));
    TaskContext c = ctx(64);
    try (BatchStream s = join.execute(0, c)) {
      Future<Long> cancelledAt =
          executor.submit(
              () -> {
                Thread.sleep(100);
                c.cancel("the test cancelled it");
                return System.nanoTime();
              });
      assertThatThrownBy(s::next)
          .isInstanceOf(QueryCancelledException.class)
          .hasMessageContaining("the test cancelled it");
      // Unfixed, the join noticed only when it asked its right input for the next batch: after
      // all 15M pairs, seconds later.
      assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt.get()))
          .isLessThan(Duration.ofSeconds(2));
    }
  }

  @Test
  void nestedLoopJoinWithEmptySides() {
    Random rnd = new Random(8);
    List<Object[]> some = rows(rnd, 20, true);
    List<Object[]> someRight = rows(rnd, 20, false);
    for (JoinType type : JoinType.values()) {
      for (int emptySide = 0; emptySide < 3; emptySide++) {
        List<Object[]> l = emptySide == 0 || emptySide == 2 ? List.of() : some;
        List<Object[]> r = emptySide == 1 || emptySide == 2 ? List.of() : someRight;
        NestedLoopJoinExec join =
            new NestedLoopJoinExec(
                source(LEFT, l, 2, null, rnd), source(RIGHT, r, 2, null, rnd), type, FILTER);
        List<String> expected = reference(l, r, new int[0], new int[0], type, LESS, false, 3, 3);
        assertThat(sortedStrings(TestData.collect(join, ctx(7))))
            .as("%s empty=%d", type, emptySide)
            .isEqualTo(expected);
        assertThat(Objects.requireNonNull(join.displayDetails())).contains(type.name());
      }
    }
  }

  /**
   * Regression: a shared (COLLECT_BUILD) build side was freed when the partition that built it
   * closed and rebuilt by a partition that started later, executing its input a second time in the
   * same execution. An exchange below it whose output was never opened (a partitioned join skips
   * its probe when its build partition is empty) then served its drained channels again, and the
   * rebuilt side lost rows: a correlated COUNT subquery returned 0 instead of 5 in a third of the
   * runs at 2 partitions. Partitions run one after the other here, so the first always closes
   * before the second starts.
   */
  @Test
  void sharedBuildIsBuiltOncePerExecutionWhenPartitionsRunOneAfterTheOther() {
    Random rnd = new Random(21);
    int[] key = {0};
    List<Object[]> single = List.<Object[]>of(new Object[] {5L, "x", 1});
    List<Object[]> many = new ArrayList<>();
    for (long k = 0; k < 20; k++) {
      many.add(new Object[] {k, "y", (int) k});
    }
    ExecutionPlan inner =
        new HashJoinExec(
            new RepartitionExec(
                source(LEFT, single, 1, null, rnd), Partitioning.hash(List.of(col(LEFT, 0)), 2)),
            new RepartitionExec(
                source(LEFT, many, 2, null, rnd), Partitioning.hash(List.of(col(LEFT, 0)), 2)),
            List.of(col(LEFT, 0)),
            List.of(col(LEFT, 0)),
            JoinType.INNER,
            null,
            PartitionMode.PARTITIONED,
            false);
    Schema innerSchema = inner.schema();
    List<Object[]> probeRows = List.of(new Object[] {5L, "a", 7}, new Object[] {5L, "b", 8});
    HashJoinExec outer =
        new HashJoinExec(
            inner,
            source(LEFT, probeRows, 2, null, rnd),
            List.of(col(innerSchema, 0)),
            List.of(col(LEFT, 0)),
            JoinType.INNER,
            null,
            PartitionMode.COLLECT_BUILD,
            false);
    for (int run = 0; run < 20; run++) {
      List<List<Object>> rows;
      // Closing the execution frees the exchange output that was never opened.
      try (TaskContext ctx = ctx(16)) {
        rows = TestData.collect(outer, ctx);
      }
      assertThat(rows).as("run %d", run).hasSize(2);
      assertThat(rows).allSatisfy(r -> assertThat(r.get(0)).isEqualTo(5L));
    }
  }

  @Test
  void executingAPartitionTwiceInOneExecutionIsRefused() {
    Random rnd = new Random(22);
    MemorySourceExec src = source(LEFT, rows(rnd, 10, true), 2, null, rnd);
    TaskContext ctx = ctx(16);
    TestData.drain(src.execute(0, ctx));
    assertThatThrownBy(() -> src.execute(0, ctx))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("MemorySourceExec partition 0 was executed twice");
    TestData.drain(src.execute(1, ctx));
    TestData.drain(src.execute(0, ctx(16)));
  }
}
