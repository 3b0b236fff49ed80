package dev.quiver.scheduler.job;

import java.util.List;
import java.util.Map;

/** What the scheduler shows of its jobs (the HTTP API and web UI): immutable snapshots. */
public final class JobViews {
  private JobViews() {}

  /**
   * One job as the jobs list shows it.
   *
   * @param name the query's SQL text (or a rendering of its plan)
   * @param user who submitted it: the user of its token (--users-file), else as the client named
   *     them; empty when neither says
   * @param state QUEUED, RUNNING, SUCCEEDED, FAILED or CANCELLED
   * @param submittedAtMillis wall-clock time of submission, Unix epoch milliseconds
   * @param startedAtMillis wall-clock time its first task was launched (the end of its queueing),
   *     or 0 before
   * @param finishedAtMillis wall-clock time it ended, or 0 while it runs
   * @param rows rows written by the tasks that succeeded, over all stages
   * @param resultRows rows of its result: what the final stage's succeeded tasks wrote
   * @param error why it failed, or null
   * @param resourceGroup the resource group it runs in
   * @param queuePosition its place in its group's queue while it waits for admission (1 = next),
   *     else 0
   * @param bytes bytes written by the tasks that succeeded, over all stages
   * @param errorType the kind of error it failed with (e.g. QuiverException), or null
   * @param fromHistory true when it comes from the job history: the scheduler no longer runs or
   *     remembers it, and its stages may lack their tasks (see {@link JobDetail})
   * @param peakMemoryBytes most Arrow memory its tasks held on all executors together, as their
   *     heartbeats reported it, and never less than {@code peakMemoryByExecutor}'s largest (0 when
   *     none was reported, and for jobs read from the history)
   * @param peakMemoryByExecutor most its tasks held on each executor, by executor id
   */
  public record JobSummary(
      String id,
      String name,
      String user,
      String state,
      long submittedAtMillis,
      long startedAtMillis,
      long finishedAtMillis,
      int stagesDone,
      int stagesTotal,
      int tasksDone,
      int tasksTotal,
      int tasksRunning,
      long rows,
      long resultRows,
      String error,
      String resourceGroup,
      int queuePosition,
      long bytes,
      String errorType,
      boolean fromHistory,
      long peakMemoryBytes,
      Map<String, Long> peakMemoryByExecutor) {

    /** This finished job as the history shows it: nothing of it runs any more. */
    public JobSummary inHistory() {
      return new JobSummary(
          id,
          name,
          user,
          state,
          submittedAtMillis,
          startedAtMillis,
          finishedAtMillis,
          stagesDone,
          stagesTotal,
          tasksDone,
          tasksTotal,
          0,
          rows,
          resultRows,
          error,
          resourceGroup,
          0,
          bytes,
          errorType,
          true,
          peakMemoryBytes,
          peakMemoryByExecutor);
    }
  }

  /**
   * One task's latest attempt.
   *
   * @param state WAITING (not launched, or to run again), RUNNING, SUCCEEDED, FAILED or CANCELLED
   * @param attempt number of the latest attempt, -1 before the first launch
   * @param attempts attempts launched so far
   * @param elapsedMillis the attempt's run time (so far, while it runs)
   * @param launchedAfterMillis when the attempt was launched, in milliseconds after the job was
   *     submitted; -1 before the first launch
   * @param endedAfterMillis when the scheduler learnt that the attempt ended, in milliseconds after
   *     the job was submitted; -1 while it runs or waits. With the launch offsets of a stage's
   *     inputs these show where a job's time goes between its tasks.
   * @param fetchedBytes bytes its scans read from files and object stores
   * @param shuffleReadBytes Arrow bytes of shuffle input it read
   * @param failures why each of its failed attempts failed, oldest first
   */
  public record TaskView(
      int task,
      int attempt,
      int attempts,
      String state,
      String executorId,
      String executorHost,
      long rows,
      long bytes,
      long spilledBytes,
      long elapsedMillis,
      long launchedAfterMillis,
      long endedAfterMillis,
      long fetchedBytes,
      long shuffleReadBytes,
      List<String> failures) {}

  /**
   * One operator of a stage's plan, what it measured summed over the stage's succeeded tasks (as
   * EXPLAIN ANALYZE shows each task's).
   *
   * @param depth its depth in the plan tree (0: the stage's root)
   * @param tasks the succeeded tasks that reported it
   * @param elapsedMillis time spent producing its output (children included), summed over tasks
   * @param maxTaskElapsedMillis the longest any one task spent in it
   */
  public record OperatorView(
      int depth,
      String name,
      int tasks,
      long outputRows,
      long outputBatches,
      long elapsedMillis,
      long maxTaskElapsedMillis,
      long spilledBytes,
      long fetchedBytes) {}

  /**
   * One stage.
   *
   * @param inputs the stages whose output it reads
   * @param partitioning how its output is split among its consumer's tasks
   * @param boundary how consumers read its output
   * @param planText its plan, one operator a line
   * @param operators what each operator of its plan measured, in plan order (parents first)
   */
  public record StageView(
      int id,
      int taskCount,
      int tasksSucceeded,
      List<Integer> inputs,
      int outputPartitions,
      String partitioning,
      String boundary,
      String planText,
      String adaptive,
      List<TaskView> tasks,
      List<OperatorView> operators) {}

  /**
   * A job with its stages, their tasks, and the stage graph as Graphviz DOT. A job read back from
   * the history database after a restart has its stages and their operators but no tasks.
   */
  public record JobDetail(
      JobSummary summary, List<StageView> stages, int finalStageId, String dot) {}

  /**
   * Tasks of unfinished jobs: waiting to run, and running; and those jobs.
   *
   * @param ready the waiting tasks of admitted jobs whose inputs are complete: they would run now
   *     given a free slot (what an autoscaler adds executors for)
   */
  public record TaskCounts(int queued, int running, int jobsRunning, int ready) {}
}
