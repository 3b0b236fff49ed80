package dev.quiver.binding.physical.sort;

import static dev.quiver.binding.physical.sort.TestData.BIGINT;
import static dev.quiver.binding.physical.sort.TestData.BOOL;
import static dev.quiver.binding.physical.sort.TestData.DATE;
import static dev.quiver.binding.physical.sort.TestData.DOUBLE;
import static dev.quiver.binding.physical.sort.TestData.INT;
import static dev.quiver.binding.physical.sort.TestData.UTF8;
import static dev.quiver.binding.physical.sort.TestData.field;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.ColumnExpr;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(120)
class SortExecTest {
  private final BufferAllocator root = new RootAllocator();
  private final BufferAllocator query = root.newChildAllocator("query", 0, Long.MAX_VALUE);
  private final ExecutorService executor = Executors.newCachedThreadPool();
  @TempDir Path spill;

  @AfterEach
  void close() throws IOException {
    executor.shutdownNow();
    assertThat(query.getAllocatedMemory()).isZero();
    query.close();
    assertThat(root.getAllocatedMemory()).isZero();
    root.close();
    try (Stream<Path> files = Files.list(spill)) {
      assertThat(files).isEmpty();
    }
  }

  private TaskContext ctx(long pool, int batchSize) {
    return TestData.context(query, pool, batchSize, spill, executor);
  }

  /** Reference order of one Java value of a test column (non-null). */
  @SuppressWarnings("unchecked")
  static int compareValues(Object a, Object b) {
    if (a instanceof Double x) {
      double y = (Double) b;
      if (x < y) {
        return -1;
      }
      if (x > y) {
        return 1;
      }
      return Boolean.compare(Double.isNaN(x), Double.isNaN(y));
    }
    if (a instanceof String x) {
      return Arrays.compareUnsigned(
          x.getBytes(StandardCharsets.UTF_8), ((String) b).getBytes(StandardCharsets.UTF_8));
    }
    if (a instanceof Number x && !(a instanceof BigDecimal)) {
      return Long.compare(x.longValue(), ((Number) b).longValue());
    }
    return ((Comparable<Object>) a).compareTo(b);
  }

  static Comparator<List<Object>> reference(int col, boolean asc, boolean nullsFirst) {
    return (r1, r2) -> {
      Object a = r1.get(col);
      Object b = r2.get(col);
      if (a == null || b == null) {
        return a == b ? 0 : (a == null) == nullsFirst ? -1 : 1;
      }
      int c = compareValues(a, b);
      return asc ? c : -c;
    };
  }

  static SortField key(Schema schema, int col, boolean asc, boolean nullsFirst) {
    var f = schema.getFields().get(col);
    return new SortField(new ColumnExpr(col, f.getName(), f.getType(), true), asc, nullsFirst);
  }

  /** Random rows split into {@code parts} partitions of batches of varying size. */
  private MemorySourceExec source(Schema schema, List<Object[]> rows, int parts, Random rnd) {
    List<List<VectorSchemaRoot>> partitions = new ArrayList<>();
    for (int p = 0; p < parts; p++) {
      partitions.add(new ArrayList<>());
    }
    int i = 0;
    int p = 0;
    while (i < rows.size()) {
      int n = Math.min(rows.size() - i, 1 + rnd.nextInt(300));
      partitions.get(p).add(TestData.batch(schema, root, rows.subList(i, i + n)));
      i += n;
      p = (p + 1) % parts;
    }
    return new MemorySourceExec(schema, partitions);
  }

  static Stream<Arguments> types() {
    List<Arguments> out = new ArrayList<>();
    List<Object[]> types =
        List.of(
            new Object[] {BIGINT, (Function<Random, Object>) r -> r.nextLong() % 1000},
            new Object[] {INT, (Function<Random, Object>) r -> r.nextInt()},
            new Object[] {
              DOUBLE,
              (Function<Random, Object>)
                  r ->
                      switch (r.nextInt(12)) {
                        case 0 -> Double.NaN;
                        case 1 -> -0.0;
                        case 2 -> 0.0;
                        case 3 -> Double.NEGATIVE_INFINITY;
                        case 4 -> Double.POSITIVE_INFINITY;
                        default -> r.nextGaussian() * 100;
                      }
            },
            new Object[] {
              TestData.decimal(2),
              (Function<Random, Object>)
                  r ->
                      r.nextInt(4) == 0
                          ? new BigDecimal(
                              new BigInteger(120, r).subtract(BigInteger.ONE.shiftLeft(119)), 2)
                          : BigDecimal.valueOf(r.nextInt(100000) - 50000, 2)
            },
            new Object[] {
              UTF8,
              (Function<Random, Object>)
                  r -> {
                    String[] words = {"", "a", "ab", "b", "Z", "é", "ü", "\u4e2d", "aa", "abc"};
                    return words[r.nextInt(words.length)]
                        + (r.nextBoolean() ? words[r.nextInt(10)] : "");
                  }
            },
            new Object[] {BOOL, (Function<Random, Object>) Random::nextBoolean},
            new Object[] {
              DATE, (Function<Random, Object>) r -> LocalDate.ofEpochDay(r.nextInt(40000) - 20000)
            });
    for (Object[] t : types) {
      for (boolean asc : new boolean[] {true, false}) {
        for (boolean nullsFirst : new boolean[] {true, false}) {
          out.add(Arguments.of(t[0], t[1], asc, nullsFirst));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} asc={2} nullsFirst={3}")
  @MethodSource("types")
  void sortsEveryTypeInEveryDirection(
      ArrowType type, Function<Random, Object> gen, boolean asc, boolean nullsFirst) {
    Random rnd = new Random(42);
    Schema schema = new Schema(List.of(field("k", type), field("id", INT)));
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      rows.add(new Object[] {rnd.nextInt(10) == 0 ? null : gen.apply(rnd), i});
    }
    try (MemorySourceExec src = source(schema, rows, 3, rnd)) {
      SortExec sort = new SortExec(src, List.of(key(schema, 0, asc, nullsFirst)), -1, false);
      assertThat(sort.partitionCount()).isEqualTo(1);
      List<List<Object>> out = TestData.collect(sort, ctx(Long.MAX_VALUE, 256));
      assertSortedPermutation(out, rows, reference(0, asc, nullsFirst));
      assertThat(sort.metrics().outputRows()).isEqualTo(3000);
    }
  }

  static void assertSortedPermutation(
      List<List<Object>> out, List<Object[]> input, Comparator<List<Object>> cmp) {
    assertThat(out).hasSize(input.size());
    for (int i = 1; i < out.size(); i++) {
      if (cmp.compare(out.get(i - 1), out.get(i)) > 0) {
        throw new AssertionError(
            "rows "
                + (i - 1)
                + " and "
                + i
                + " out of order: "
                + out.get(i - 1)
                + " then "
                + out.get(i));
      }
    }
    List<String> expected = input.stream().map(r -> Arrays.asList(r).toString()).sorted().toList();
    List<String> actual = out.stream().map(Object::toString).sorted().toList();
    assertThat(actual).isEqualTo(expected);
  }

  /**
   * A top-k's heap keeps exactly the stable sort's first k rows, ties in row order, for a single
   * key of each kind (the sorted-by-normalized-key path) and several keys, with nulls.
   */
  @Test
  void topPermutationIsTheSortedPermutationsPrefix() {
    Random rnd = new Random(19);
    Schema schema =
        new Schema(
            List.of(
                field("a", INT),
                field("s", UTF8),
                field("d", TestData.decimal(2)),
                field("x", DOUBLE)));
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      rows.add(
          new Object[] {
            rnd.nextInt(9) == 0 ? null : rnd.nextInt(40),
            rnd.nextInt(9) == 0 ? null : "s" + rnd.nextInt(25),
            rnd.nextInt(9) == 0 ? null : java.math.BigDecimal.valueOf(rnd.nextInt(60), 2),
            rnd.nextInt(9) == 0 ? null : (double) rnd.nextInt(50)
          });
    }
    List<List<SortField>> orders = new ArrayList<>();
    for (int c = 0; c < 4; c++) {
      for (boolean asc : new boolean[] {true, false}) {
        orders.add(List.of(key(schema, c, asc, !asc)));
      }
    }
    orders.add(List.of(key(schema, 0, true, false), key(schema, 1, false, true)));
    orders.add(List.of(key(schema, 2, false, false), key(schema, 3, true, true)));
    try (VectorSchemaRoot batch = TestData.batch(schema, query, rows)) {
      for (List<SortField> order : orders) {
        SortKeys keys = SortKeys.extract(batch, order, query);
        int[] sorted = keys.sortedPermutation();
        for (int k : new int[] {0, 1, 2, 7, 100, 2999, 3000, 3005}) {
          assertThat(keys.topPermutation(k))
              .as("%s, k=%d", order, k)
              .containsExactly(Arrays.copyOf(sorted, Math.min(k, sorted.length)));
        }
      }
    }
  }

  /**
   * The multi-key sort by normalized keys (each key sorted as primitives, runs of equal values by
   * the next key) gives exactly the stable comparator sort's permutation, ties in row order, for
   * keys of every kind in both directions with nulls first and last, and low-cardinality leading
   * keys whose runs are long.
   */
  @Test
  void normalizedMultiKeySortIsTheStableComparatorSort() {
    Random rnd = new Random(23);
    Schema schema =
        new Schema(
            List.of(
                field("a", INT),
                field("d", TestData.decimal(2)),
                field("x", DOUBLE),
                field("s", UTF8),
                field("day", DATE),
                field("wide", TestData.decimal(0))));
    double[] doubles = {Double.NaN, -0.0, 0.0, 1.5, -2.5, Double.POSITIVE_INFINITY};
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 4000; i++) {
      rows.add(
          new Object[] {
            rnd.nextInt(9) == 0 ? null : rnd.nextInt(3),
            rnd.nextInt(9) == 0 ? null : BigDecimal.valueOf(rnd.nextInt(7) - 3, 2),
            rnd.nextInt(9) == 0 ? null : doubles[rnd.nextInt(doubles.length)],
            rnd.nextInt(9) == 0 ? null : "s" + rnd.nextInt(4),
            rnd.nextInt(9) == 0 ? null : LocalDate.ofEpochDay(rnd.nextInt(5) - 2),
            rnd.nextInt(9) == 0
                ? null
                : new BigDecimal(BigInteger.valueOf(rnd.nextInt(3)).shiftLeft(70 * rnd.nextInt(2)))
          });
    }
    try (VectorSchemaRoot batch = TestData.batch(schema, query, rows)) {
      for (int trial = 0; trial < 40; trial++) {
        List<SortField> order = new ArrayList<>();
        int keys = 1 + rnd.nextInt(4);
        for (int k = 0; k < keys; k++) {
          order.add(key(schema, rnd.nextInt(6), rnd.nextBoolean(), rnd.nextBoolean()));
        }
        SortKeys sortKeys = SortKeys.extract(batch, order, query);
        assertThat(sortKeys.sortedPermutation())
            .as("%s", order)
            .containsExactly(IntSorter.sortedPermutation(4000, sortKeys.comparator()));
      }
    }
  }

  @Test
  void multiKeySortAndTopK() {
    Random rnd = new Random(7);
    Schema schema = new Schema(List.of(field("a", INT), field("s", UTF8), field("x", DOUBLE)));
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      rows.add(
          new Object[] {
            rnd.nextInt(8) == 0 ? null : rnd.nextInt(20),
            rnd.nextInt(8) == 0 ? null : "s" + rnd.nextInt(30),
            (double) i
          });
    }
    Comparator<List<Object>> cmp =
        reference(0, true, false).thenComparing(reference(1, false, true));
    List<SortField> order = List.of(key(schema, 0, true, false), key(schema, 1, false, true));
    try (MemorySourceExec src = source(schema, rows, 4, rnd)) {
      List<List<Object>> all =
          TestData.collect(new SortExec(src, order, -1, false), ctx(Long.MAX_VALUE, 500));
      assertSortedPermutation(all, rows, cmp);

      for (long fetch : new long[] {0, 1, 7, 700, 4999, 5000, 9000}) {
        List<List<Object>> top =
            TestData.collect(new SortExec(src, order, fetch, false), ctx(Long.MAX_VALUE, 64));
        assertThat(top).hasSize((int) Math.min(fetch, 5000));
        for (int i = 0; i < top.size(); i++) {
          // Keys must equal the full sort's keys at the same position (ties may differ in payload).
          assertThat(cmp.compare(top.get(i), all.get(i))).as("row %d fetch %d", i, fetch).isZero();
        }
      }
    }
  }

  @Test
  void preservePartitioningSortsEachPartitionAndMergeCombinesThem() {
    Random rnd = new Random(3);
    Schema schema = new Schema(List.of(field("k", BIGINT), field("id", INT)));
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 4000; i++) {
      rows.add(new Object[] {rnd.nextInt(10) == 0 ? null : (long) rnd.nextInt(500), i});
    }
    List<SortField> order = List.of(key(schema, 0, false, false));
    Comparator<List<Object>> cmp = reference(0, false, false);
    try (MemorySourceExec src = source(schema, rows, 5, rnd)) {
      SortExec perPartition = new SortExec(src, order, -1, true);
      assertThat(perPartition.partitionCount()).isEqualTo(5);
      // A partition runs at most once per execution: each run gets its own context.
      java.util.function.Supplier<TaskContext> ctx = () -> ctx(Long.MAX_VALUE, 100);
      int total = 0;
      for (int p = 0; p < 5; p++) {
        List<List<Object>> part = TestData.drain(perPartition.execute(p, ctx.get()));
        List<List<Object>> in = TestData.drain(src.execute(p, ctx.get()));
        assertSortedPermutation(part, in.stream().map(List::toArray).toList(), cmp);
        total += part.size();
      }
      assertThat(total).isEqualTo(4000);

      SortPreservingMergeExec merge = new SortPreservingMergeExec(perPartition, order, -1);
      assertThat(merge.partitionCount()).isEqualTo(1);
      assertSortedPermutation(TestData.collect(merge, ctx.get()), rows, cmp);

      List<List<Object>> top =
          TestData.collect(new SortPreservingMergeExec(perPartition, order, 33), ctx.get());
      List<List<Object>> all = TestData.collect(merge, ctx.get());
      assertThat(top).hasSize(33);
      for (int i = 0; i < 33; i++) {
        assertThat(cmp.compare(top.get(i), all.get(i))).isZero();
      }
      // One input partition: passed through with the fetch applied.
      SortExec single = new SortExec(src, order, -1, false);
      assertThat(TestData.collect(new SortPreservingMergeExec(single, order, 10), ctx.get()))
          .hasSize(10);
    }
  }

  @Test
  void emptyInputsGiveEmptyOutput() {
    Schema schema = new Schema(List.of(field("k", BIGINT)));
    try (MemorySourceExec src =
        new MemorySourceExec(
            schema, List.of(List.of(), List.of(TestData.batch(schema, root, List.of()))))) {
      List<SortField> order = List.of(key(schema, 0, true, true));
      // A partition runs at most once per execution: each run gets its own context.
      java.util.function.Supplier<TaskContext> ctx = () -> ctx(Long.MAX_VALUE, 10);
      assertThat(TestData.collect(new SortExec(src, order, -1, false), ctx.get())).isEmpty();
      assertThat(TestData.collect(new SortExec(src, order, 5, true), ctx.get())).isEmpty();
      assertThat(
              TestData.collect(
                  new SortPreservingMergeExec(new SortExec(src, order, -1, true), order, -1),
                  ctx.get()))
          .isEmpty();
    }
  }

  @Test
  void closingEarlyReleasesEverything() {
    Random rnd = new Random(5);
    Schema schema = new Schema(List.of(field("k", BIGINT)));
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 20000; i++) {
      rows.add(new Object[] {(long) rnd.nextInt()});
    }
    try (MemorySourceExec src = source(schema, rows, 3, rnd)) {
      List<SortField> order = List.of(key(schema, 0, true, true));
      SortExec sort = new SortExec(src, order, -1, false);
      // A small pool forces spills; the stream is closed after the first batch.
      try (BatchStream s = sort.execute(0, ctx(64 * 1024, 1000))) {
        try (VectorSchemaRoot first = s.next()) {
          assertThat(first.getRowCount()).isEqualTo(1000);
        }
      }
      assertThat(sort.metrics().spillCount()).isPositive();
      SortPreservingMergeExec merge =
          new SortPreservingMergeExec(new SortExec(src, order, -1, true), order, -1);
      try (BatchStream s = merge.execute(0, ctx(Long.MAX_VALUE, 100))) {
        s.next().close();
      }
    }
  }

  @Test
  void spillsToDiskWhenThePoolIsFarBelowTheInput() {
    int rows = 2_000_000;
    int batch = 8192;
    Schema schema = new Schema(List.of(field("k", BIGINT), field("v", BIGINT)));
    Random rnd = new Random(11);
    List<List<VectorSchemaRoot>> parts = List.of(new ArrayList<>(), new ArrayList<>());
    long checksum = 0;
    for (int off = 0, p = 0; off < rows; off += batch, p ^= 1) {
      int n = Math.min(batch, rows - off);
      VectorSchemaRoot b = VectorSchemaRoot.create(schema, root);
      BigIntVector k = (BigIntVector) b.getVector(0);
      BigIntVector v = (BigIntVector) b.getVector(1);
      k.allocateNew(n);
      v.allocateNew(n);
      for (int i = 0; i < n; i++) {
        long key = rnd.nextLong();
        k.set(i, key);
        v.set(i, off + i);
        checksum += off + i;
      }
      k.setValueCount(n);
      v.setValueCount(n);
      b.setRowCount(n);
      parts.get(p).add(b);
    }
    try (MemorySourceExec src = new MemorySourceExec(schema, parts)) {
      SortExec sort = new SortExec(src, List.of(key(schema, 0, true, true)), -1, false);
      long count = 0;
      long sum = 0;
      long prev = Long.MIN_VALUE;
      try (BatchStream s = sort.execute(0, ctx(4L << 20, batch))) {
        VectorSchemaRoot next;
        while ((next = s.next()) != null) {
          try (VectorSchemaRoot b = next) {
            BigIntVector k = (BigIntVector) b.getVector(0);
            BigIntVector v = (BigIntVector) b.getVector(1);
            for (int i = 0; i < b.getRowCount(); i++) {
              long key = k.get(i);
              if (key < prev) {
                throw new AssertionError("out of order at row " + (count + i));
              }
              prev = key;
              sum += v.get(i);
            }
            count += b.getRowCount();
          }
        }
      }
      assertThat(count).isEqualTo(rows);
      assertThat(sum).isEqualTo(checksum);
      assertThat(sort.metrics().spillCount()).isGreaterThan(1);
      assertThat(sort.metrics().spilledBytes()).isGreaterThan(8L * rows);
    }
  }
}
