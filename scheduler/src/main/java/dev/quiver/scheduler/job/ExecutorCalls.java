package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.CancelTasksRequest;
import dev.quiver.distributed.proto.CancelTasksResponse;
import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.LaunchTaskResponse;
import dev.quiver.distributed.proto.RemoveJobDataRequest;
import dev.quiver.distributed.proto.RemoveJobDataResponse;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.scheduler.config.SchedulerConfig;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's calls to executors' {@code ExecutorControl} service: launching a task, cancelling
 * tasks, removing a job's data. Calls are asynchronous; what the job loop must act on (a launch
 * refused, an executor unreachable) comes back through a callback, which posts an event.
 */
final class ExecutorCalls implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExecutorCalls.class);

  private final ExecutorClients clients;

  ExecutorCalls(long deadlineMillis, SchedulerConfig config, GrpcTransport transport) {
    this.clients = new ExecutorClients(deadlineMillis, config.security(), transport);
  }

  /** The request launching attempt {@code number} of {@code task}, reading its inputs' outputs. */
  static LaunchTaskRequest launchRequest(TaskRun task, int number) {
    Job job = task.stage.job;
    LaunchTaskRequest.Builder request =
        LaunchTaskRequest.newBuilder()
            .setTask(task.id(number))
            .setPlan(task.stage.plan)
            .setOutputPartitions(task.stage.spec.getOutputPartitions())
            .putAllSettings(job.spec.getSettingsMap())
            .setJobCapability(job.capability)
            .addAllSplitScans(task.stage.splits.keySet())
            .addAllKeyFilterBuilds(task.stage.spec.getKeyFilterBuildsList());
    if (task.stage.keyFilter != null) {
      request.setKeyFilter(task.stage.keyFilter);
    }
    for (StageRun input : task.stage.inputs) {
      request.addAllInputs(input.outputs());
      request.putInputTaskCounts(input.id(), input.tasks.size());
    }
    if (task.input != null) {
      request
          .setPlanPartition(task.input.planPartition())
          .addAllInputSlices(task.input.slices().values());
    }
    return request.build();
  }

  /** Sends {@code request} to {@code target}; {@code refused} gets the status of a failed call. */
  void launchTask(ExecutorInfo target, LaunchTaskRequest request, Consumer<Status> refused) {
    clients
        .stub(target)
        .launchTask(
            request,
            new StreamObserver<>() {
              @Override
              public void onNext(LaunchTaskResponse value) {}

              @Override
              public void onError(Throwable t) {
                refused.accept(Status.fromThrowable(t));
              }

              @Override
              public void onCompleted() {}
            });
  }

  /**
   * Asks executor {@code executorId}, one the job used, to cancel {@code ids} of {@code job};
   * {@code unreachable} gets the generation of the channel the call took when it fails with
   * UNAVAILABLE (job loop only).
   */
  void cancelTasks(
      Job job, String executorId, List<TaskId> ids, String why, LongConsumer unreachable) {
    ExecutorInfo info = job.executorsUsed.get(executorId);
    LOG.debug("{}: cancelling {} on '{}': {}", job.describe(), ids, executorId, why);
    ExecutorControlGrpc.ExecutorControlStub stub = clients.stub(info);
    // Only the loop thread opens and drops channels, so this is the channel stub() returned.
    long generation = clients.generation(executorId);
    stub.cancelTasks(
        CancelTasksRequest.newBuilder().addAllTasks(ids).build(),
        new StreamObserver<>() {
          @Override
          public void onNext(CancelTasksResponse value) {
            LOG.debug("CancelTasks for {} on '{}': {}", job.describe(), executorId, value);
          }

          @Override
          public void onError(Throwable t) {
            Status status = Status.fromThrowable(t);
            LOG.warn(
                "CancelTasks for {} on executor '{}' failed: {}",
                job.describe(),
                executorId,
                status);
            if (status.getCode() == Status.Code.UNAVAILABLE) {
              unreachable.accept(generation);
            }
          }

          @Override
          public void onCompleted() {}
        });
  }

  /** Asks {@code info} to delete job {@code jobId}'s data; {@code what} names the call in logs. */
  void removeJobData(ExecutorInfo info, String jobId, String what) {
    clients
        .stub(info)
        .removeJobData(
            RemoveJobDataRequest.newBuilder().setJobId(jobId).build(),
            new StreamObserver<RemoveJobDataResponse>() {
              @Override
              public void onNext(RemoveJobDataResponse value) {
                LOG.debug("{}: {}", what, value);
              }

              @Override
              public void onError(Throwable t) {
                Status status = Status.fromThrowable(t);
                if (closedHere(status)) {
                  // The scheduler stopping, or dropping a gone executor: nothing failed.
                  LOG.debug("{} not sent: {}", what, status);
                } else {
                  LOG.warn("{} failed: {}", what, status);
                }
              }

              @Override
              public void onCompleted() {}
            });
  }

  /** Opens a watched channel to {@code info}; {@code broken} gets its id and channel generation. */
  void connect(ExecutorInfo info, BiConsumer<String, Long> broken) {
    clients.connect(info, broken);
  }

  /** Whether {@code generation} is the channel the executor is reached on now. */
  boolean isCurrent(String executorId, long generation) {
    return clients.isCurrent(executorId, generation);
  }

  /** The generation of the channel the executor is reached on now, or -1 without one. */
  long generation(String executorId) {
    return clients.generation(executorId);
  }

  /** Drops the channel to an executor (lost, or re-registered elsewhere). */
  void forget(String executorId) {
    clients.forget(executorId);
  }

  @Override
  public void close() {
    clients.close();
  }

  /** Whether a call failed because this side shut its channel down, not the executor. */
  static boolean closedHere(Status status) {
    return status.getCode() == Status.Code.UNAVAILABLE
        && status.getDescription() != null
        && status.getDescription().contains("shutdownNow invoked");
  }
}
