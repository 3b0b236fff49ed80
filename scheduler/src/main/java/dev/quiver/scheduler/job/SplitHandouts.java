package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.NextSplitsRequest;
import dev.quiver.distributed.proto.NextSplitsResponse;
import dev.quiver.distributed.proto.TaskId;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * Answers an executor's {@code NextSplits} on the job loop from the stage's {@link SplitQueue}.
 * Only a running attempt gets splits: one that ended or was cancelled (its task succeeded
 * elsewhere, its job ended) is refused, so it cannot take splits that no successful attempt would
 * read.
 */
final class SplitHandouts {

  private SplitHandouts() {}

  /**
   * The splits {@code request}'s attempt gets.
   *
   * @throws StatusRuntimeException FAILED_PRECONDITION when the attempt does not run (any more),
   *     INVALID_ARGUMENT when the request names no such stage, task, scan or position
   */
  static NextSplitsResponse answer(JobRegistry jobs, NextSplitsRequest request) {
    TaskId id = request.getTask();
    Job job = jobs.get(id.getJobId());
    if (job == null || job.terminal()) {
      throw Status.FAILED_PRECONDITION
          .withDescription("job " + id.getJobId() + " is not running; its tasks read no more")
          .asRuntimeException();
    }
    StageRun stage = job.stages.get(id.getStageId());
    if (stage == null || id.getTaskId() >= stage.tasks.size()) {
      throw invalid(
          job.describe() + " has no stage " + id.getStageId() + " task " + id.getTaskId());
    }
    TaskRun task = stage.tasks.get(id.getTaskId());
    if (task.runningAttempt(id.getAttempt(), request.getExecutorId()) == null) {
      throw Status.FAILED_PRECONDITION
          .withDescription(
              "attempt "
                  + id.getAttempt()
                  + " of "
                  + task.describe()
                  + " of "
                  + job.describe()
                  + " is not running on executor '"
                  + request.getExecutorId()
                  + "' (it ended or was cancelled): it gets no splits")
          .asRuntimeException();
    }
    SplitQueue queue = stage.splits.get(request.getScan());
    if (queue == null) {
      throw invalid(
          "stage "
              + stage.id()
              + " of "
              + job.describe()
              + " hands out no splits of scan "
              + request.getScan());
    }
    SplitQueue.Answer answer;
    try {
      answer = queue.next(id.getTaskId(), request.getReceived(), request.getWant());
    } catch (IllegalArgumentException e) {
      throw invalid(job.describe() + " stage " + stage.id() + ": " + e.getMessage());
    }
    return NextSplitsResponse.newBuilder()
        .addAllSplits(answer.splits())
        .setLast(answer.last())
        .build();
  }

  private static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }
}
