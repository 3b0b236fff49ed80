package dev.quiver.binding.physical.join;

import static dev.quiver.binding.physical.sort.TestData.BIGINT;
import static dev.quiver.binding.physical.sort.TestData.INT;
import static dev.quiver.binding.physical.sort.TestData.UTF8;
import static dev.quiver.binding.physical.sort.TestData.decimal;
import static dev.quiver.binding.physical.sort.TestData.field;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.sort.TestData;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bucketed hash table against a nested-loop reference, for every key layout it specialises (one
 * integer word, two words, more words, string keys), with and without null keys, duplicate keys, a
 * single bucket, empty sides, and pair buffers too small for one probe row's matches.
 */
@Timeout(60)
class JoinHashTableTest {
  /** Build side: int, bigint, decimal, string; the probe side swaps the integer widths. */
  private static final Schema BUILD =
      new Schema(
          List.of(field("a", INT), field("b", BIGINT), field("d", decimal(2)), field("s", UTF8)));

  private static final Schema PROBE =
      new Schema(
          List.of(field("a", BIGINT), field("b", INT), field("d", decimal(2)), field("s", UTF8)));

  private final BufferAllocator allocator = new RootAllocator();
  private final List<VectorSchemaRoot> batches = new ArrayList<>();

  @AfterEach
  void close() {
    batches.forEach(VectorSchemaRoot::close);
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  static Stream<Arguments> layouts() {
    List<Arguments> out = new ArrayList<>();
    int[][] keySets = {{0}, {1}, {0, 1}, {2}, {0, 2, 1}, {3}, {1, 3}};
    for (int[] keys : keySets) {
      for (boolean buildNulls : new boolean[] {false, true}) {
        for (boolean probeNulls : new boolean[] {false, true}) {
          for (boolean nullEq : new boolean[] {false, true}) {
            out.add(Arguments.of(keys, buildNulls, probeNulls, nullEq));
          }
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "keys={0} buildNulls={1} probeNulls={2} nullEqualsNull={3}")
  @MethodSource("layouts")
  void pairsAndMatchesEqualANestedLoop(
      int[] keys, boolean buildNulls, boolean probeNulls, boolean nullEq) {
    Random rnd = new Random(keys.length * 131L + (buildNulls ? 7 : 0) + (probeNulls ? 3 : 0));
    List<Object[]> build = rows(rnd, 700, 40, buildNulls, false);
    JoinHashTable table = table(build, keys, nullEq);
    // Several probe batches against one table, as a stream of probe batches does.
    for (int batch = 0; batch < 4; batch++) {
      List<Object[]> probe = rows(rnd, 1 + rnd.nextInt(300), 60, probeNulls, true);
      check(table, build, probe, keys, nullEq);
    }
  }

  @Test
  void everyBuildRowInOneBucketWithOneKey() {
    List<Object[]> build = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      build.add(new Object[] {7, 7L, new BigDecimal("7.00"), "seven"});
    }
    List<Object[]> probe = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      probe.add(new Object[] {(long) (i % 3 == 0 ? 7 : i), 7, new BigDecimal("7.00"), "seven"});
    }
    for (int[] keys : new int[][] {{0}, {0, 1}, {2}, {3}, {0, 2, 1}}) {
      check(table(build, keys, false), build, probe, keys, false);
    }
  }

  @Test
  void emptyBuildOrProbeSide() {
    Random rnd = new Random(5);
    List<Object[]> some = rows(rnd, 50, 10, true, false);
    for (int[] keys : new int[][] {{0}, {0, 1}, {3}}) {
      check(table(List.of(), keys, false), List.of(), some, keys, false);
      check(table(some, keys, true), some, List.of(), keys, true);
    }
  }

  @Test
  void estimateCoversTheBuiltTableForFixedWidthKeys() {
    Random rnd = new Random(11);
    for (int rows : new int[] {0, 1, 15, 16, 17, 1000, 4097}) {
      List<Object[]> build = rows(rnd, rows, 1000, rows % 2 == 1, false);
      for (int[] keys : new int[][] {{0}, {0, 1}, {2}, {0, 2, 1}}) {
        JoinHashTable table = table(build, keys, false);
        long estimate = JoinHashTable.estimateBytes(rows, exprs(BUILD, keys));
        assertThat(table.heapBytes()).isPositive().isLessThanOrEqualTo(estimate);
      }
    }
  }

  private JoinHashTable table(List<Object[]> build, int[] keys, boolean nullEq) {
    VectorSchemaRoot b = TestData.batch(BUILD, allocator, build);
    batches.add(b);
    return new JoinHashTable(JoinKeys.extract(b, exprs(BUILD, keys), allocator), nullEq);
  }

  /** Pairs at several pair-buffer sizes and per-row matches equal the nested-loop reference. */
  private void check(
      JoinHashTable table, List<Object[]> build, List<Object[]> probe, int[] keys, boolean nullEq) {
    VectorSchemaRoot p = TestData.batch(PROBE, allocator, probe);
    batches.add(p);
    JoinKeys probeKeys = JoinKeys.extract(p, exprs(PROBE, keys), allocator);
    List<String> expected = new ArrayList<>();
    boolean[] expectedMatched = new boolean[probe.size()];
    for (int j = 0; j < probe.size(); j++) {
      for (int i = 0; i < build.size(); i++) {
        if (equal(build.get(i), probe.get(j), keys, nullEq)) {
          expected.add(i + ":" + j);
          expectedMatched[j] = true;
        }
      }
    }
    expected.sort(null);
    for (int cap : new int[] {1, 2, 7, 4096}) {
      JoinHashTable.Probe pr = table.new Probe(probeKeys);
      int[] bo = new int[cap];
      int[] po = new int[cap];
      List<String> got = new ArrayList<>();
      while (!pr.done()) {
        int n = pr.fill(bo, po, cap);
        assertThat(n).isBetween(0, cap);
        for (int k = 0; k < n; k++) {
          got.add(bo[k] + ":" + po[k]);
        }
      }
      assertThat(pr.fill(bo, po, cap)).isZero();
      got.sort(null);
      assertThat(got).as("pairs with a buffer of %d", cap).isEqualTo(expected);
    }
    boolean[] matched = new boolean[probe.size()];
    table.anyMatches(probeKeys, matched);
    assertThat(matched).isEqualTo(expectedMatched);
  }

  private static boolean equal(Object[] b, Object[] p, int[] keys, boolean nullEq) {
    for (int k : keys) {
      Object x = normalize(b[k]);
      Object y = normalize(p[k]);
      if (x == null || y == null) {
        if (!(nullEq && x == null && y == null)) {
          return false;
        }
      } else if (!x.equals(y)) {
        return false;
      }
    }
    return true;
  }

  private static Object normalize(Object o) {
    return o instanceof Integer i ? (Object) i.longValue() : o;
  }

  /** Rows over a domain of {@code distinct} keys per column, each key null one time in six. */
  private static List<Object[]> rows(
      Random rnd, int n, int distinct, boolean nulls, boolean probeSide) {
    List<Object[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int a = rnd.nextInt(distinct);
      int b = rnd.nextInt(3);
      Object[] row = {
        probeSide ? (Object) (long) a : (Object) a,
        probeSide ? (Object) b : (Object) (long) b,
        BigDecimal.valueOf(rnd.nextInt(distinct), 2),
        "k" + rnd.nextInt(distinct)
      };
      if (nulls) {
        for (int c = 0; c < row.length; c++) {
          if (rnd.nextInt(6) == 0) {
            row[c] = null;
          }
        }
      }
      out.add(row);
    }
    return out;
  }

  private static List<PhysicalExpr> exprs(Schema schema, int[] keys) {
    List<PhysicalExpr> out = new ArrayList<>();
    for (int k : keys) {
      Field f = schema.getFields().get(k);
      out.add(new ColumnExpr(k, f.getName(), f.getType(), true));
    }
    return out;
  }
}
