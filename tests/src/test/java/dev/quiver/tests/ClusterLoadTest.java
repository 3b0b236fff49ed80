package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many clients at once on one process cluster: every client runs the 22 TPC-H queries (at SF 0.1,
 * each from its own session and connection) round after round, every result is checked against the
 * single-node binding, and afterwards every executor reports no task, no shuffle bytes and no Arrow
 * memory, holds no file, and every client allocator is back at zero (checked by {@link QuiverRows}
 * after each query). Sizes come from {@code -Dquiver.load.clients} (16) and {@code
 * -Dquiver.load.rounds} (5); slow, so outside the default suite.
 */
@Tag("slow")
class ClusterLoadTest {
  private static final int CLIENTS = Integer.getInteger("quiver.load.clients", 16);
  private static final int ROUNDS = Integer.getInteger("quiver.load.rounds", 5);
  private static final int EXECUTORS = 3;

  @Test
  @Timeout(value = 60, unit = TimeUnit.MINUTES)
  void concurrentClientsRunEveryQueryCorrectlyAndLeaveNothingBehind() throws Exception {
    Path data = TpchFixture.data(0.1);
    Map<String, QueryResult> expected = new LinkedHashMap<>();
    try (QuiverRows local = new QuiverRows(data, 2)) {
      for (TpchQuery q : TpchQueries.all()) {
        expected.put(q.name(), local.query(q.sql()));
      }
    }
    Path logs = Files.createTempDirectory("quiver-load-");
    try (ProcessCluster processes =
        ProcessCluster.start(logs, EXECUTORS, ProcessCluster.Options.of(2))) {
      runLoad(processes, data, expected);
    } finally {
      ProcessCluster.deleteTree(logs);
    }
  }

  private static void runLoad(
      ProcessCluster processes, Path data, Map<String, QueryResult> expected) throws Exception {
    List<String> roundTimes = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    // Clients start each round together, so every round is measured under full load.
    long[] roundStart = new long[1];
    CyclicBarrier barrier =
        new CyclicBarrier(
            CLIENTS,
            () -> {
              long now = System.nanoTime();
              if (roundStart[0] != 0) {
                roundTimes.add(
                    "round "
                        + (roundTimes.size() + 1)
                        + ": "
                        + TimeUnit.NANOSECONDS.toMillis(now - roundStart[0])
                        + " ms");
              }
              roundStart[0] = now;
            });
    try {
      List<Future<Integer>> clients = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        clients.add(
            pool.submit(() -> runClient(client, processes.target(), data, expected, barrier)));
      }
      int queries = 0;
      for (Future<Integer> f : clients) {
        queries += f.get(55, TimeUnit.MINUTES);
      }
      assertThat(queries).isEqualTo(CLIENTS * ROUNDS * expected.size());
    } finally {
      pool.shutdownNow();
    }
    System.out.printf(
        "load: %d clients x %d rounds x %d queries on %d executors%n%s%n",
        CLIENTS, ROUNDS, expected.size(), EXECUTORS, String.join("\n", roundTimes));

    List<ExecutorStatus> statuses =
        processes.awaitAllExecutors(
            "idle and empty after the load",
            s ->
                s.getActiveTasks() == 0
                    && s.getRunningTasks() == 0
                    && s.getShuffleBytes() == 0
                    && s.getAllocatedBytes() == 0,
            60_000);
    assertThat(statuses).hasSize(EXECUTORS);
    for (String id : processes.executorIds()) {
      assertThat(processes.filesIn(id)).as("files left in " + id).isEmpty();
    }
  }

  /** One client: its own session over the cluster, ROUNDS rounds of the 22 queries. */
  private static int runClient(
      int client,
      String target,
      Path data,
      Map<String, QueryResult> expected,
      CyclicBarrier barrier)
      throws Exception {
    int done = 0;
    ClusterFixture.ClusterRows cluster =
        ClusterFixture.remote(target, data, new SessionConfig().withTargetPartitions(2));
    try {
      for (int round = 0; round < ROUNDS; round++) {
        barrier.await(30, TimeUnit.MINUTES);
        // Clients walk the queries from different offsets so that all 22 run at once.
        List<TpchQuery> all = TpchQueries.all();
        for (int i = 0; i < all.size(); i++) {
          TpchQuery q = all.get((i + client) % all.size());
          QueryResult actual = cluster.rows().query(q.sql());
          QueryResult want = expected.get(q.name());
          Differential.check(
              q.name() + " (client " + client + ", round " + (round + 1) + ")",
              q.sql(),
              want,
              actual,
              Differential.sortOf(q.orderBy(), want));
          done++;
        }
      }
      barrier.await(30, TimeUnit.MINUTES);
    } finally {
      cluster.rows().close();
    }
    return done;
  }
}
