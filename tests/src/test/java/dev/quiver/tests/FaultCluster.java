package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.client.JobListener;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * A process cluster for fault tests with a distributed engine over it, whose job status updates a
 * test can act on (e.g. kill an executor once a stage has finished).
 */
final class FaultCluster implements AutoCloseable {
  /** What one query went through: the executor killed, the time to recover, tasks run again. */
  record Recovery(
      String query,
      String killedExecutor,
      long killToSuccessMillis,
      int tasksRunAgain,
      int stages,
      JobStatusUpdate finalStatus) {
    @Override
    public String toString() {
      return query
          + ": killed "
          + killedExecutor
          + ", job succeeded "
          + killToSuccessMillis
          + " ms later, "
          + tasksRunAgain
          + " task attempts > 0 over "
          + stages
          + " stages";
    }
  }

  final ProcessCluster processes;
  final ClusterFixture.ClusterRows cluster;
  private final Path logs;
  private volatile BiConsumer<StageGraph, JobStatusUpdate> onUpdate = (g, s) -> {};
  private volatile BiConsumer<StageGraph, JobStatusUpdate> onSuccess = (g, s) -> {};
  private volatile long succeededAtNanos;
  private volatile JobStatusUpdate lastSucceeded;

  private FaultCluster(Path logs, ProcessCluster processes, ClusterFixture.ClusterRows cluster) {
    this.logs = logs;
    this.processes = processes;
    this.cluster = cluster;
    cluster
        .runtime()
        .addJobListener(
            new JobListener() {
              @Override
              public void jobSucceeded(StageGraph graph, JobStatusUpdate status) {
                succeededAtNanos = System.nanoTime();
                lastSucceeded = status;
                onSuccess.accept(graph, status);
              }

              @Override
              public void jobUpdated(StageGraph graph, JobStatusUpdate status) {
                onUpdate.accept(graph, status);
              }
            });
  }

  /** Starts the processes and a distributed engine over the TPC-H data in {@code data}. */
  static FaultCluster start(
      int executors, ProcessCluster.Options options, Path data, SessionConfig config)
      throws Exception {
    Path logs = Files.createTempDirectory("quiver-fault-");
    ProcessCluster processes = ProcessCluster.start(logs, executors, options);
    try {
      return new FaultCluster(
          logs, processes, ClusterFixture.remote(processes.target(), data, config));
    } catch (RuntimeException e) {
      processes.close();
      throw e;
    }
  }

  /** Acts on every job status update the engine sees from now on (on the query thread). */
  void onUpdate(BiConsumer<StageGraph, JobStatusUpdate> action) {
    onUpdate = action;
  }

  /** Acts on every job that succeeds from now on, before the client reads its result. */
  void onSuccess(BiConsumer<StageGraph, JobStatusUpdate> action) {
    onSuccess = action;
  }

  /**
   * Runs {@code sql}, killing with SIGKILL, as soon as the job's first stage has finished, the
   * executor that ran that stage's task 0 (it holds that output); checks the rows against {@code
   * expected} and starts a replacement executor afterwards.
   */
  Recovery queryKillingAfterFirstStage(String name, String sql, QueryResult expected, SortSpec sort)
      throws Exception {
    int executorsBefore = processes.executorIds().size();
    String[] killed = new String[1];
    long[] killedAt = new long[1];
    onUpdate(
        (graph, status) -> {
          if (killed[0] != null || status.getState() != JobState.JOB_STATE_RUNNING) {
            return;
          }
          firstCompleteStage(status)
              .ifPresent(
                  stage -> {
                    String victim = stage.getTasks(0).getExecutorId();
                    killed[0] = victim;
                    killedAt[0] = System.nanoTime();
                    processes.killExecutor(victim);
                  });
        });
    QueryResult actual;
    try {
      actual = cluster.rows().query(sql);
    } finally {
      onUpdate((g, s) -> {});
    }
    Differential.check(name + " with an executor killed", sql, expected, actual, sort);
    assertThat(killed[0]).as(name + ": an executor was killed after the first stage").isNotNull();
    JobStatusUpdate done = lastSucceeded;
    Recovery r =
        new Recovery(
            name,
            killed[0],
            TimeUnit.NANOSECONDS.toMillis(succeededAtNanos - killedAt[0]),
            tasksRunAgain(done),
            done.getStagesCount(),
            done);
    processes.startExecutor();
    assertThat(processes.executorIds()).hasSize(executorsBefore);
    return r;
  }

  /** A stage all of whose tasks succeeded, if any. */
  static Optional<StageStatus> firstCompleteStage(JobStatusUpdate status) {
    return status.getStagesList().stream()
        .filter(s -> s.getTaskCount() > 0 && s.getTasksSucceeded() == s.getTaskCount())
        .findFirst();
  }

  /** Stages with a task running now. */
  static List<StageStatus> runningStages(JobStatusUpdate status) {
    return status.getStagesList().stream()
        .filter(
            s ->
                s.getTasksList().stream()
                    .anyMatch(t -> t.getState() == TaskState.TASK_STATE_RUNNING))
        .toList();
  }

  /** Tasks whose latest attempt is a retry or re-run (attempt > 0). */
  static int tasksRunAgain(JobStatusUpdate status) {
    int n = 0;
    for (StageStatus s : status.getStagesList()) {
      for (TaskSummary t : s.getTasksList()) {
        if (t.getTask().getAttempt() > 0) {
          n++;
        }
      }
    }
    return n;
  }

  /** When the latest job succeeded (System.nanoTime). */
  long succeededAtNanos() {
    return succeededAtNanos;
  }

  /** The latest job that succeeded. */
  JobStatusUpdate lastSucceeded() {
    return lastSucceeded;
  }

  @Override
  public void close() {
    try {
      cluster.rows().close();
    } finally {
      processes.close();
      ProcessCluster.deleteTree(logs);
    }
  }
}
