package dev.quiver.executor;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.CancelTasksRequest;
import dev.quiver.distributed.proto.CancelTasksResponse;
import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.LaunchTaskResponse;
import dev.quiver.distributed.proto.RemoveJobDataRequest;
import dev.quiver.distributed.proto.RemoveJobDataResponse;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.security.JobCapabilities;
import dev.quiver.executor.shuffle.ShuffleStore;
import dev.quiver.executor.task.TaskManager;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The executor's control plane called by the scheduler, served on the Flight port. */
final class ExecutorControlService extends ExecutorControlGrpc.ExecutorControlImplBase {

  private static final Logger LOG = LoggerFactory.getLogger(ExecutorControlService.class);

  private final ShuffleStore store;
  private final TaskManager tasks;
  private final String executorId;

  ExecutorControlService(ShuffleStore store, TaskManager tasks, String executorId) {
    this.store = store;
    this.tasks = tasks;
    this.executorId = executorId;
  }

  @Override
  public void removeJobData(
      RemoveJobDataRequest request, StreamObserver<RemoveJobDataResponse> out) {
    if (request.getJobId().isEmpty()) {
      out.onError(
          Status.INVALID_ARGUMENT
              .withDescription("RemoveJobData needs the id of the job whose data to delete")
              .asRuntimeException());
      return;
    }
    int cancelled = tasks.removeJob(request.getJobId(), "the job's data was removed");
    if (cancelled > 0) {
      LOG.info("cancelled {} tasks of removed job {}", cancelled, request.getJobId());
    }
    ShuffleStore.Removed removed;
    try {
      removed = store.removeJob(request.getJobId());
    } catch (RuntimeException e) {
      LOG.error("removing data of job {} failed", request.getJobId(), e);
      out.onError(
          Status.INTERNAL
              .withDescription(
                  "executor "
                      + executorId
                      + " failed to remove data of job "
                      + request.getJobId()
                      + ": "
                      + e)
              .withCause(e)
              .asRuntimeException());
      return;
    }
    LOG.debug(
        "removed {} shuffle partitions ({} bytes) of job {}",
        removed.partitions(),
        removed.bytes(),
        request.getJobId());
    out.onNext(
        RemoveJobDataResponse.newBuilder()
            .setRemovedPartitions(removed.partitions())
            .setRemovedBytes(removed.bytes())
            .build());
    out.onCompleted();
  }

  @Override
  public void launchTask(LaunchTaskRequest request, StreamObserver<LaunchTaskResponse> out) {
    SessionConfig config;
    try {
      config = TaskManager.validate(request);
    } catch (IllegalArgumentException e) {
      out.onError(
          Status.INVALID_ARGUMENT
              .withDescription(e.getMessage() + " (executor " + executorId + ")")
              .asRuntimeException());
      return;
    }
    if (request.getJobCapability().size() < JobCapabilities.BYTES) {
      out.onError(
          Status.INVALID_ARGUMENT
              .withDescription(
                  "LaunchTask of job "
                      + request.getTask().getJobId()
                      + " carries no job capability (executor "
                      + executorId
                      + "); the scheduler and executors must run the same Quiver release")
              .asRuntimeException());
      return;
    }
    store.grant(request.getTask().getJobId(), request.getJobCapability());
    try {
      tasks.launch(request, config);
    } catch (IllegalStateException e) {
      // Stopping: another executor can take the task. Otherwise an outdated attempt.
      Status status = tasks.isStopping() ? Status.UNAVAILABLE : Status.FAILED_PRECONDITION;
      out.onError(status.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    out.onNext(LaunchTaskResponse.getDefaultInstance());
    out.onCompleted();
  }

  @Override
  public void cancelTasks(CancelTasksRequest request, StreamObserver<CancelTasksResponse> out) {
    for (TaskId id : request.getTasksList()) {
      if (id.getJobId().isEmpty()) {
        out.onError(
            Status.INVALID_ARGUMENT
                .withDescription("CancelTasks needs the job id of every task to cancel")
                .asRuntimeException());
        return;
      }
    }
    int cancelled = tasks.cancel(request.getTasksList(), "cancelled by the scheduler");
    out.onNext(CancelTasksResponse.newBuilder().setCancelled(cancelled).build());
    out.onCompleted();
  }
}
