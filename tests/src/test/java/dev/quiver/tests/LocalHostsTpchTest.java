package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.JobListener;
import dev.quiver.distributed.client.SchedulerClient;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import dev.quiver.tests.hosts.LocalHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * TPC-H SF 1 on a cluster of hosts on one machine ({@code deploy/local-hosts}, issue 36): a
 * scheduler and three executors, each in its own network namespace with a 1 Gbit/s link and a 1-CPU
 * quota, and this JVM the client, reaching them from the root namespace through the bridge. All 22
 * answers equal single-node Quiver's on the same data; the quiver command runs from the client
 * host; then all 22 again while one executor is killed with SIGKILL in the middle of the run, and
 * started again. Skipped where namespaces cannot be made (not root, no iproute2).
 */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalHostsTpchTest {
  private static final double SCALE = 1;
  private static final int EXECUTORS = 3;
  private static final Duration QUERY_TIMEOUT = Duration.ofMinutes(10);
  private static final String COUNT_LINEITEM = "SELECT count(*) AS n FROM lineitem";

  private final QueryThread thread = new QueryThread();
  private final Map<String, QueryResult> expected = new LinkedHashMap<>();
  private final List<TpchQuery> queries = TpchQueries.all();
  private Path data;
  private LocalHosts hosts;
  private ClusterFixture.ClusterRows cluster;

  /** Acts on every job status update (on the query thread). */
  private volatile BiConsumer<StageGraph, JobStatusUpdate> onUpdate = (graph, status) -> {};

  @BeforeAll
  void start() throws Exception {
    // Before generating SF 1 and the single-node answers: a machine without namespaces skips.
    LocalHosts.assumeAvailable();
    data = TpchFixture.data(SCALE);
    thread.run(
        Duration.ofMinutes(30),
        "single-node answers",
        () -> {
          try (QuiverRows local = new QuiverRows(data, 4)) {
            for (TpchQuery q : queries) {
              expected.put(q.name(), local.query(q.sql()));
            }
            expected.put(COUNT_LINEITEM, local.query(COUNT_LINEITEM));
          }
        });
    hosts =
        LocalHosts.up(
            Files.createDirectories(Path.of("target", "local-hosts")),
            LocalHosts.Options.of(EXECUTORS).withLink("1gbit").withExecutorCpus(1, 2));
    thread.run(
        Duration.ofMinutes(2),
        "connect",
        () -> {
          cluster = ClusterFixture.remote(hosts.scheduler(), data, new SessionConfig());
          cluster
              .runtime()
              .addJobListener(
                  new JobListener() {
                    @Override
                    public void jobSucceeded(StageGraph graph, JobStatusUpdate status) {}

                    @Override
                    public void jobUpdated(StageGraph graph, JobStatusUpdate status) {
                      onUpdate.accept(graph, status);
                    }
                  });
        });
  }

  @AfterAll
  void stop() {
    try {
      if (cluster != null) {
        thread.run(Duration.ofMinutes(2), "close", () -> cluster.rows().close());
      }
    } finally {
      thread.close();
      if (hosts != null) {
        hosts.close();
      }
    }
  }

  @Test
  @Order(1)
  @Timeout(value = 60, unit = TimeUnit.MINUTES)
  void everyAnswerOnThreeExecutorHostsEqualsSingleNode() {
    keepingLogsOnFailure(
        () -> {
          // Each executor registered with its own namespace's address, which peers and this
          // client dial: no host shares an address and none is on loopback, all on the bridge's
          // subnet, which this JVM reaches from the root namespace's address on it.
          String subnet =
              hosts.rootAddress().substring(0, hosts.rootAddress().lastIndexOf('.') + 1);
          assertThat(hosts.scheduler()).startsWith(subnet);
          assertThat(executors())
              .allSatisfy(e -> assertThat(e.getInfo().getHost()).startsWith(subnet))
              .extracting(e -> e.getInfo().getHost())
              .containsExactlyInAnyOrder(
                  hosts.executorAddress(1), hosts.executorAddress(2), hosts.executorAddress(3));
          for (TpchQuery q : queries) {
            thread.run(
                QUERY_TIMEOUT,
                q.name(),
                () -> {
                  cluster.jobs().clear();
                  check(q, "on " + EXECUTORS + " executor hosts");
                  List<JobStatusUpdate> jobs = List.copyOf(cluster.jobs());
                  assertThat(jobs).as(q.name() + " ran as a distributed job").isNotEmpty();
                  assertThat(ClusterFixture.executorsOf(jobs.get(jobs.size() - 1)))
                      .as(q.name() + " executors that ran tasks")
                      .hasSizeGreaterThanOrEqualTo(2);
                });
          }
        });
  }

  @Test
  @Order(2)
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aClientHostRunsTheQuiverCommandOnTheCluster() {
    keepingLogsOnFailure(
        () -> {
          // The path people take: the quiver command in the client host's own namespace.
          LocalHosts.Result r =
              hosts.runInClient(
                  List.of(
                      Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                      "-jar",
                      ProcessCluster.jar("examples", "quiver.jar").toString(),
                      "sql",
                      "--scheduler",
                      hosts.scheduler(),
                      "--parquet",
                      "lineitem=" + data.resolve("lineitem"),
                      "--format",
                      "csv",
                      "-e",
                      COUNT_LINEITEM),
                  Duration.ofMinutes(4));
          assertThat(r.status()).as("quiver sql in the client host:\n" + r.output()).isZero();
          Object count = expected.get(COUNT_LINEITEM).rows().get(0).get(0);
          assertThat(r.output().lines()).as(r.output()).contains("n", count.toString());
        });
  }

  @Test
  @Order(3)
  @Timeout(value = 60, unit = TimeUnit.MINUTES)
  void everyAnswerStaysEqualWhenAnExecutorIsKilledMidRun() {
    keepingLogsOnFailure(
        () -> {
          // From the middle query on, the first job seen running with a finished stage loses the
          // executor that ran that stage's task 0, so its output must be computed again.
          int middle = queries.size() / 2;
          String[] killed = new String[2];
          RuntimeException[] killFailed = new RuntimeException[1];
          for (int i = 0; i < queries.size(); i++) {
            TpchQuery q = queries.get(i);
            if (i == middle) {
              onUpdate =
                  (graph, status) -> {
                    if (killed[0] != null
                        || killFailed[0] != null
                        || status.getState() != JobState.JOB_STATE_RUNNING) {
                      return;
                    }
                    FaultCluster.firstCompleteStage(status)
                        .ifPresent(
                            stage -> {
                              String victim = stage.getTasks(0).getExecutorId();
                              try {
                                hosts.killExecutor(executorNumber(victim));
                              } catch (RuntimeException e) {
                                // Thrown here it would reach the query, not the test.
                                killFailed[0] = e;
                                return;
                              }
                              killed[0] = victim;
                              killed[1] = q.name();
                            });
                  };
            }
            String during = killed[0];
            thread.run(
                QUERY_TIMEOUT,
                q.name(),
                () -> {
                  cluster.jobs().clear();
                  check(q, during == null ? "before the kill" : "after " + during + " was killed");
                });
            if (during != null) {
              List<JobStatusUpdate> jobs = List.copyOf(cluster.jobs());
              assertThat(ClusterFixture.executorsOf(jobs.get(jobs.size() - 1)))
                  .as(q.name() + " ran on the executors left")
                  .doesNotContain(killed[0]);
            }
          }
          onUpdate = (graph, status) -> {};
          if (killFailed[0] != null) {
            throw killFailed[0];
          }
          assertThat(killed[0]).as("an executor was killed during the run").isNotNull();
          System.out.println(
              "local hosts: killed " + killed[0] + " during " + killed[1] + "; 22 answers equal");
          assertThat(executors())
              .filteredOn(e -> e.getInfo().getExecutorId().equals(killed[0]))
              .extracting(ExecutorStatus::getState)
              .as("the scheduler's view of the killed executor")
              .containsExactly(ExecutorState.EXECUTOR_STATE_LOST);

          // Started again on its host, it registers again under its id.
          hosts.startExecutor(executorNumber(killed[0]));
          assertThat(executors())
              .filteredOn(e -> e.getInfo().getExecutorId().equals(killed[0]))
              .extracting(ExecutorStatus::getState)
              .as("the scheduler's view of the restarted executor")
              .contains(ExecutorState.EXECUTOR_STATE_ALIVE);
        });
  }

  /** Runs {@code q} on the cluster and compares its rows with the single-node answer. */
  private void check(TpchQuery q, String when) {
    QueryResult want = expected.get(q.name());
    Differential.check(
        q.name() + " at SF 1 " + when,
        q.sql(),
        want,
        cluster.rows().query(q.sql()),
        Differential.sortOf(q.orderBy(), want));
  }

  /** N of the id {@code executor-N} that local-hosts.sh gives executor N. */
  private static int executorNumber(String executorId) {
    return Integer.parseInt(executorId.substring("executor-".length()));
  }

  private List<ExecutorStatus> executors() {
    try (SchedulerClient client = new SchedulerClient(ClusterConfig.remote(hosts.scheduler()))) {
      return client.executorsIncludingLost();
    }
  }

  /** Runs {@code test}; when it fails, the hosts' logs stay in target/local-hosts. */
  private void keepingLogsOnFailure(Runnable test) {
    try {
      test.run();
    } catch (RuntimeException | Error e) {
      hosts.keepLogs();
      throw e;
    }
  }
}
