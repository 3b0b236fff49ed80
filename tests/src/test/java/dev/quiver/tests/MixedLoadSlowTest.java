package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mixed load of issue 39 on a scheduler and two executor jars with resource groups: 4 clients
 * of user {@code etl} (group etl, weight 1) run TPC-H SF 1 Q18 and Q21 in a loop while 4 clients of
 * user {@code adhoc} (group adhoc, weight 3) run the 22 queries at SF 0.1; the adhoc queries' p95
 * latency must stay within 3 times their p95 on the idle cluster (the same 4 adhoc clients without
 * the etl load, after a warm-up pass). Every answer is checked against DuckDB; counts and latencies
 * are printed. Rounds of the adhoc queries under load: {@code -Dquiver.mixed.rounds} (1).
 */
@Tag("slow")
class MixedLoadSlowTest {
  private static final int ETL_CLIENTS = 4;
  private static final int ADHOC_CLIENTS = 4;
  private static final int ROUNDS = Integer.getInteger("quiver.mixed.rounds", 1);
  private static final List<Integer> ETL_QUERIES = List.of(18, 21);

  /**
   * {@code -Dquiver.mixed.fifo=true}: both users in one group, so slots go first come, first
   * served, for comparison; the latency bound is then only printed.
   */
  private static final boolean FIFO = Boolean.getBoolean("quiver.mixed.fifo");

  @TempDir Path tmp;

  @Test
  @Timeout(value = 90, unit = TimeUnit.MINUTES)
  void adhocLatencyStaysWithinThreeTimesIdleWhileEtlRuns() throws Exception {
    Path small = TpchFixture.data(0.1);
    Path large = TpchFixture.data(1.0);
    Map<String, QueryResult> adhocWant = new LinkedHashMap<>();
    try (DuckDbRows duckdb = new DuckDbRows(small, 2)) {
      for (TpchQuery q : TpchQueries.all()) {
        adhocWant.put(q.name(), duckdb.query(q.sql()));
      }
    }
    Map<String, QueryResult> etlWant = new LinkedHashMap<>();
    try (DuckDbRows duckdb = new DuckDbRows(large, 2)) {
      for (int n : ETL_QUERIES) {
        TpchQuery q = TpchQueries.get(n);
        etlWant.put(q.name(), duckdb.query(q.sql()));
      }
    }
    String groups =
        """
        {"groups": [
           {"name": "etl", "maxRunning": 4, "maxQueued": 8, "weight": 1, "memoryShare": 0.5},
           {"name": "adhoc", "maxRunning": 8, "maxQueued": 16, "weight": 3, "memoryShare": 0.5}],
         "selectors": [{"user": "etl", "group": "etl"}, {"user": "adhoc", "group": "adhoc"}]}
        """;
    if (FIFO) {
      groups = "{\"groups\": [{\"name\": \"all\", \"maxRunning\": 12}]}";
    }
    try (UsersCluster cluster =
        UsersCluster.start(tmp, List.of("etl", "adhoc"), groups, 2, 2, false)) {
      List<UsersCluster.Client> adhoc = new ArrayList<>();
      for (int i = 0; i < ADHOC_CLIENTS; i++) {
        adhoc.add(cluster.client("adhoc", small, new SessionConfig().withTargetPartitions(2)));
      }
      List<UsersCluster.Client> etl = new ArrayList<>();
      for (int i = 0; i < ETL_CLIENTS; i++) {
        etl.add(cluster.client("etl", large, new SessionConfig().withTargetPartitions(4)));
      }
      ExecutorService pool = Executors.newFixedThreadPool(ADHOC_CLIENTS + ETL_CLIENTS);
      try {
        // A first pass warms the JVMs (JIT, file metadata); it is checked but not timed.
        runAdhoc(pool, adhoc, 1, adhocWant);
        List<Long> idle = runAdhoc(pool, adhoc, 1, adhocWant);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger etlDone = new AtomicInteger();
        List<Long> etlMillis = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> etlRuns = new ArrayList<>();
        for (int c = 0; c < ETL_CLIENTS; c++) {
          UsersCluster.Client client = etl.get(c);
          int offset = c;
          etlRuns.add(
              pool.submit(
                  () -> {
                    for (int i = offset; !stop.get(); i++) {
                      TpchQuery q = TpchQueries.get(ETL_QUERIES.get(i % ETL_QUERIES.size()));
                      long start = System.nanoTime();
                      QueryResult got = client.query(q.sql());
                      etlMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                      check(q, etlWant.get(q.name()), got, "etl at SF 1");
                      etlDone.incrementAndGet();
                    }
                    return null;
                  }));
        }
        // The etl queries hold the cluster before the adhoc ones start.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < until
            && etl.stream().noneMatch(c -> c.saw(u -> u.getStagesCount() > 0))) {
          Thread.sleep(50);
        }
        Thread.sleep(5_000);
        List<Long> loaded = runAdhoc(pool, adhoc, ROUNDS, adhocWant);
        stop.set(true);
        for (Future<?> f : etlRuns) {
          f.get(30, TimeUnit.MINUTES);
        }
        long idleP95 = percentile(idle, 95);
        long loadedP95 = percentile(loaded, 95);
        System.out.printf(
            "mixed load%s: adhoc idle %d queries p50 %d ms p95 %d ms; under etl load %d queries"
                + " p50 %d ms p95 %d ms (%.2fx); etl %d queries (SF 1 Q18/Q21) p50 %d ms max %d"
                + " ms%n",
            FIFO ? " (one group, first come first served)" : "",
            idle.size(),
            percentile(idle, 50),
            idleP95,
            loaded.size(),
            percentile(loaded, 50),
            loadedP95,
            (double) loadedP95 / idleP95,
            etlDone.get(),
            percentile(etlMillis, 50),
            percentile(etlMillis, 100));
        assertThat(etlDone.get()).as("etl queries finished under the mixed load").isPositive();
        if (!FIFO) {
          assertThat(loadedP95)
              .as("adhoc p95 under etl load (idle p95 %d ms)", idleP95)
              .isLessThanOrEqualTo(3 * idleP95);
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /** Every adhoc client runs the 22 queries {@code rounds} times; their latencies, in ms. */
  private static List<Long> runAdhoc(
      ExecutorService pool,
      List<UsersCluster.Client> clients,
      int rounds,
      Map<String, QueryResult> want)
      throws Exception {
    List<Long> millis = Collections.synchronizedList(new ArrayList<>());
    List<Future<?>> runs = new ArrayList<>();
    List<TpchQuery> all = TpchQueries.all();
    for (int c = 0; c < clients.size(); c++) {
      UsersCluster.Client client = clients.get(c);
      int offset = c * all.size() / clients.size();
      runs.add(
          pool.submit(
              () -> {
                for (int i = 0; i < rounds * all.size(); i++) {
                  TpchQuery q = all.get((i + offset) % all.size());
                  long start = System.nanoTime();
                  QueryResult got = client.query(q.sql());
                  millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                  check(q, want.get(q.name()), got, "adhoc at SF 0.1");
                }
                return null;
              }));
    }
    for (Future<?> f : runs) {
      f.get(60, TimeUnit.MINUTES);
    }
    return new ArrayList<>(millis);
  }

  private static void check(TpchQuery q, QueryResult want, QueryResult got, String where) {
    Differential.check(
        q.name() + " (" + where + ")", q.sql(), want, got, Differential.sortOf(q.orderBy(), want));
  }

  /** The {@code p}-th percentile (nearest rank) of {@code values}. */
  private static long percentile(List<Long> values, int p) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }
}
