package dev.quiver.executor;

import dev.quiver.distributed.proto.CancelTasksRequest;
import dev.quiver.distributed.proto.CancelTasksResponse;
import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.LaunchTaskResponse;
import dev.quiver.distributed.proto.RemoveJobDataRequest;
import dev.quiver.distributed.proto.RemoveJobDataResponse;
import dev.quiver.distributed.wire.WireProtocol;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The executor's control plane called by the scheduler, served on the Flight port. */
final class ExecutorControlService extends ExecutorControlGrpc.ExecutorControlImplBase {

  private static final Logger LOG = LoggerFactory.getLogger(ExecutorControlService.class);

  private final ShuffleStore store;
  private final String executorId;

  ExecutorControlService(ShuffleStore store, String executorId) {
    this.store = store;
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
    LOG.info(
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
    out.onError(tasksUnavailable("LaunchTask"));
  }

  @Override
  public void cancelTasks(CancelTasksRequest request, StreamObserver<CancelTasksResponse> out) {
    out.onError(tasksUnavailable("CancelTasks"));
  }

  private StatusRuntimeException tasksUnavailable(String method) {
    return Status.UNIMPLEMENTED
        .withDescription(
            method
                + " is not available on executor "
                + executorId
                + " (release "
                + WireProtocol.softwareVersion()
                + "): it serves shuffle data only; running tasks needs the plan codec, which"
                + " this release does not have yet")
        .asRuntimeException();
  }
}
