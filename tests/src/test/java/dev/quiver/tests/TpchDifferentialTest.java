package dev.quiver.tests;

import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The 22 TPC-H queries on Quiver against DuckDB, at SF 0.01 and 0.1, with 1, 2 and 4 partitions; at
 * SF 0.1 also with 8, more partitions than files, so that scans divide files by row group.
 */
class TpchDifferentialTest {
  private static final double[] SCALES = {0.01, 0.1};
  private static final int[] PARTITIONS = {1, 2, 4};

  /** Partitions beyond the table's 4 files: lineitem and orders are read by row-group ranges. */
  private static final int ROW_GROUP_PARTITIONS = 8;

  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(45);

  // Reference results per scale and query, computed once; engines per scale and partitions.
  private static final Map<String, QueryResult> EXPECTED = new HashMap<>();
  private static final Map<String, RowEngine> ENGINES = new HashMap<>();
  // Engines are created and queried on this one thread.
  private static final QueryThread QUERY_THREAD = new QueryThread();

  @AfterAll
  static void closeEngines() {
    QUERY_THREAD.run(QUERY_TIMEOUT, "close", () -> ENGINES.values().forEach(RowEngine::close));
    QUERY_THREAD.close();
    ENGINES.clear();
    EXPECTED.clear();
  }

  @TestFactory
  Stream<DynamicNode> tpch() {
    List<DynamicNode> scales = new ArrayList<>();
    for (double sf : SCALES) {
      List<DynamicNode> configs = new ArrayList<>();
      int[] partitionCounts =
          sf >= 0.1
              ? java.util.stream.IntStream.concat(
                      java.util.Arrays.stream(PARTITIONS),
                      java.util.stream.IntStream.of(ROW_GROUP_PARTITIONS))
                  .toArray()
              : PARTITIONS;
      for (int partitions : partitionCounts) {
        List<DynamicNode> tests = new ArrayList<>();
        if (partitions == ROW_GROUP_PARTITIONS) {
          tests.add(
              DynamicTest.dynamicTest(
                  "lineitem is divided by row group",
                  () ->
                      QUERY_THREAD.run(
                          QUERY_TIMEOUT,
                          "explain",
                          () -> checkRowGroupSplits(sf, partitions),
                          () -> dropEngine(sf, partitions))));
        }
        for (TpchQuery q : TpchQueries.all()) {
          tests.add(
              DynamicTest.dynamicTest(
                  q.name(),
                  () ->
                      QUERY_THREAD.run(
                          QUERY_TIMEOUT,
                          q.name(),
                          () -> run(sf, partitions, q),
                          () -> dropEngine(sf, partitions))));
        }
        configs.add(DynamicContainer.dynamicContainer("partitions=" + partitions, tests));
      }
      scales.add(DynamicContainer.dynamicContainer("sf=" + sf, configs));
    }
    return scales.stream();
  }

  private static void run(double sf, int partitions, TpchQuery q) {
    QueryResult expected = expected(sf, q);
    RowEngine actual = engine(sf, partitions);
    QueryResult result = actual.query(q.sql());
    SortSpec sort = Differential.sortOf(q.orderBy(), expected);
    Differential.check(
        q.name() + " at SF " + sf + ", " + partitions + " partitions on " + actual.name(),
        q.sql(),
        expected,
        result,
        sort);
  }

  private static void checkRowGroupSplits(double sf, int partitions) {
    if (engine(sf, partitions) instanceof QuiverRows quiver) {
      String plan = quiver.session().sql("select count(*) from lineitem").explain();
      if (!plan.contains("[rg ")) {
        throw new AssertionError("lineitem is not divided by row group:\n" + plan);
      }
    }
  }

  private static QueryResult expected(double sf, TpchQuery q) {
    synchronized (EXPECTED) {
      String key = sf + "/" + q.number();
      QueryResult r = EXPECTED.get(key);
      if (r == null) {
        r = engine(sf, 0).query(q.sql());
        EXPECTED.put(key, r);
      }
      return r;
    }
  }

  /** Closes (cancelling its running query) and forgets an engine; the next use opens a new one. */
  private static void dropEngine(double sf, int partitions) {
    RowEngine engine;
    synchronized (ENGINES) {
      engine = ENGINES.remove(sf + "/" + partitions);
    }
    if (engine != null) {
      engine.close();
    }
  }

  /** Partitions 0 means the reference engine. */
  private static RowEngine engine(double sf, int partitions) {
    synchronized (ENGINES) {
      return ENGINES.computeIfAbsent(
          sf + "/" + partitions,
          k -> {
            Path dir = TpchFixture.data(sf);
            return partitions == 0
                ? Differential.reference(dir)
                : Differential.actual(dir, partitions);
          });
    }
  }
}
