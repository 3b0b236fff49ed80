package dev.quiver.decorators;

/**
 * How far a distributed query's job has got, as of the scheduler's latest status update.
 *
 * @param jobId the scheduler's id of the job
 * @param state {@code QUEUED}, {@code RUNNING}, {@code SUCCEEDED}, {@code FAILED} or {@code
 *     CANCELLED}
 * @param stagesDone stages whose every task has succeeded
 * @param stagesTotal stages of the job
 * @param tasksDone tasks that have succeeded, over all stages
 * @param tasksTotal tasks of the job, over all stages
 * @param tasksRunning tasks running right now
 * @param rows rows written by the tasks that have succeeded, over all stages
 * @param elapsedMillis time since the client submitted the job
 * @param queuePosition while the job waits for admission in its resource group, its place in the
 *     group's queue (1 = next); 0 once admitted
 * @param resourceGroup the resource group it runs in ("" before the scheduler said)
 */
public record JobProgress(
    String jobId,
    String state,
    int stagesDone,
    int stagesTotal,
    int tasksDone,
    int tasksTotal,
    int tasksRunning,
    long rows,
    long elapsedMillis,
    int queuePosition,
    String resourceGroup) {

  /** Whether the job has ended (succeeded, failed or was cancelled). */
  public boolean finished() {
    return state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED");
  }

  /** Share of the job's tasks that have succeeded, between 0 and 1. */
  public double fraction() {
    return tasksTotal == 0 ? 0 : Math.min(1.0, (double) tasksDone / tasksTotal);
  }
}
