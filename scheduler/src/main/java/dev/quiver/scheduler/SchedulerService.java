package dev.quiver.scheduler;

import dev.quiver.distributed.proto.CancelJobRequest;
import dev.quiver.distributed.proto.CancelJobResponse;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.HeartbeatResponse;
import dev.quiver.distributed.proto.JobStatusRequest;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.ListExecutorsRequest;
import dev.quiver.distributed.proto.ListExecutorsResponse;
import dev.quiver.distributed.proto.NextSplitsRequest;
import dev.quiver.distributed.proto.NextSplitsResponse;
import dev.quiver.distributed.proto.RegisterRequest;
import dev.quiver.distributed.proto.RegisterResponse;
import dev.quiver.distributed.proto.ReleaseJobRequest;
import dev.quiver.distributed.proto.ReleaseJobResponse;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.SubmitJobRequest;
import dev.quiver.distributed.proto.SubmitJobResponse;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.proto.TaskStatusResponse;
import dev.quiver.distributed.security.Callers;
import dev.quiver.distributed.security.Role;
import dev.quiver.distributed.wire.WireProtocol;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.job.JobManager;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/** The scheduler's gRPC service: the executor registry and jobs. */
final class SchedulerService extends SchedulerGrpc.SchedulerImplBase {

  private static final Logger LOG = LoggerFactory.getLogger(SchedulerService.class);

  private final ExecutorRegistry registry;
  private final SchedulerConfig config;
  private final JobManager jobs;

  /** Inside an application (the embedded cluster): executors joining are logged at DEBUG. */
  private final boolean embedded;

  SchedulerService(
      ExecutorRegistry registry, SchedulerConfig config, JobManager jobs, boolean embedded) {
    this.embedded = embedded;
    this.registry = registry;
    this.config = config;
    this.jobs = jobs;
  }

  @Override
  public void register(RegisterRequest request, StreamObserver<RegisterResponse> out) {
    respond(
        out,
        () -> {
          Callers.requireCluster("Register (joining the cluster as an executor)");
          ExecutorInfo info = request.getExecutor();
          String who = "executor '" + info.getExecutorId() + "' (" + info.getHost() + ")";
          WireProtocol.requireCompatible(request.getProtocolVersion(), who, "scheduler");
          validate(info);
          boolean fresh = jobs.register(info);
          if (fresh) {
            LOG.atLevel(embedded ? Level.DEBUG : Level.INFO)
                .log(
                    "{} registered: flight port {}, {} cores, {} bytes of memory, release {}",
                    who,
                    info.getFlightPort(),
                    info.getCores(),
                    info.getMemoryBytes(),
                    info.getVersion());
          }
          return RegisterResponse.newBuilder()
              .setProtocolVersion(WireProtocol.VERSION)
              .setHeartbeatIntervalMillis(config.heartbeatInterval().toMillis())
              .setHeartbeatTimeoutMillis(config.heartbeatTimeout().toMillis())
              .build();
        });
  }

  @Override
  public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> out) {
    respond(
        out,
        () -> {
          Callers.requireCluster("Heartbeat (an executor's)");
          if (request.getExecutorId().isEmpty()) {
            throw invalid("a heartbeat must carry the executor id it got registered with");
          }
          boolean known = registry.heartbeat(request);
          if (known) {
            jobs.heartbeat(request);
          }
          if (!known) {
            LOG.info(
                "heartbeat from executor '{}', which is not registered or was marked lost:"
                    + " asking it to register again",
                request.getExecutorId());
          }
          return HeartbeatResponse.newBuilder()
              .setReregister(!known)
              .setDraining(known && registry.draining(request.getExecutorId()))
              .build();
        });
  }

  @Override
  public void listExecutors(
      ListExecutorsRequest request, StreamObserver<ListExecutorsResponse> out) {
    respond(
        out,
        () -> {
          List<ExecutorStatus> all = registry.list(request.getIncludeLost());
          if (Callers.role() != Role.CLUSTER) {
            // Hosts, ports, memory and load are the operators'; clients plan with slots only.
            all = all.stream().map(SchedulerService::slotsOnly).toList();
          }
          return ListExecutorsResponse.newBuilder().addAllExecutors(all).build();
        });
  }

  /** What a client may see of an executor: whether it is alive and its task slots. */
  private static ExecutorStatus slotsOnly(ExecutorStatus e) {
    return ExecutorStatus.newBuilder()
        .setState(e.getState())
        .setInfo(ExecutorInfo.newBuilder().setCores(e.getInfo().getCores()))
        .build();
  }

  @Override
  public void submitJob(SubmitJobRequest request, StreamObserver<SubmitJobResponse> out) {
    respond(
        out,
        () -> {
          WireProtocol.requireCompatible(request.getProtocolVersion(), "client", "scheduler");
          JobManager.Submitted job =
              jobs.submitJob(request.getJob(), request.getSubmissionId(), submitter(request));
          return SubmitJobResponse.newBuilder()
              .setJobId(job.jobId())
              .setJobCapability(job.capability())
              .build();
        });
  }

  /**
   * Whom a job runs as: the user whose token the call carries; else, from a caller with the cluster
   * role (a trusted front end such as {@code quiver serve}, which names its own client), the job's
   * {@code user} field; else nobody (""). A client cannot claim another user.
   */
  private static String submitter(SubmitJobRequest request) {
    String user = Callers.user();
    if (!user.isEmpty()) {
      return user;
    }
    return Callers.role() == Role.CLUSTER ? request.getJob().getUser() : "";
  }

  @Override
  public void jobStatus(JobStatusRequest request, StreamObserver<JobStatusUpdate> out) {
    if (request.getJobId().isEmpty()) {
      out.onError(invalid("JobStatus needs the job id SubmitJob returned"));
      return;
    }
    try {
      jobs.checkCapability(request.getJobId(), request.getJobCapability(), "JobStatus");
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    }
    jobs.watch(request.getJobId(), (ServerCallStreamObserver<JobStatusUpdate>) out);
  }

  @Override
  public void cancelJob(CancelJobRequest request, StreamObserver<CancelJobResponse> out) {
    respond(
        out,
        () -> {
          String jobId = requireJobId(request.getJobId(), "CancelJob");
          jobs.checkCapability(jobId, request.getJobCapability(), "CancelJob");
          return CancelJobResponse.newBuilder().setCancelled(jobs.cancel(jobId)).build();
        });
  }

  @Override
  public void releaseJob(ReleaseJobRequest request, StreamObserver<ReleaseJobResponse> out) {
    respond(
        out,
        () -> {
          String jobId = requireJobId(request.getJobId(), "ReleaseJob");
          jobs.checkCapability(jobId, request.getJobCapability(), "ReleaseJob");
          jobs.release(jobId);
          return ReleaseJobResponse.getDefaultInstance();
        });
  }

  @Override
  public void reportTaskStatus(TaskStatusReport request, StreamObserver<TaskStatusResponse> out) {
    respond(
        out,
        () -> {
          Callers.requireCluster("ReportTaskStatus (an executor's)");
          jobs.report(request);
          return TaskStatusResponse.getDefaultInstance();
        });
  }

  @Override
  public void nextSplits(NextSplitsRequest request, StreamObserver<NextSplitsResponse> out) {
    try {
      Callers.requireCluster("NextSplits (an executor's task)");
      if (request.getTask().getJobId().isEmpty() || request.getExecutorId().isEmpty()) {
        throw invalid("NextSplits needs the task's job id and the executor id");
      }
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    }
    jobs.nextSplits(request)
        .whenComplete(
            (answer, failure) -> {
              if (failure == null) {
                out.onNext(answer);
                out.onCompleted();
              } else if (failure instanceof StatusRuntimeException status) {
                out.onError(status);
              } else {
                LOG.error("NextSplits failed", failure);
                out.onError(
                    Status.INTERNAL
                        .withDescription("scheduler error: " + failure)
                        .withCause(failure)
                        .asRuntimeException());
              }
            });
  }

  private static String requireJobId(String jobId, String method) {
    if (jobId.isEmpty()) {
      throw invalid(method + " needs the job id SubmitJob returned");
    }
    return jobId;
  }

  private static void validate(ExecutorInfo info) {
    if (info.getExecutorId().isEmpty()) {
      throw invalid("executor registration needs a non-empty executor_id");
    }
    if (info.getHost().isEmpty()) {
      throw invalid("executor '" + info.getExecutorId() + "' registered without a host");
    }
    if (info.getFlightPort() == 0 || info.getFlightPort() > 65535) {
      throw invalid(
          "executor '"
              + info.getExecutorId()
              + "' registered with flight port "
              + info.getFlightPort()
              + "; send the port its Flight server actually listens on");
    }
    if (info.getCores() == 0) {
      throw invalid("executor '" + info.getExecutorId() + "' registered with 0 cores");
    }
  }

  private static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }

  /** Answers a unary call; any failure becomes a status, never an escaped exception. */
  private static <T> void respond(StreamObserver<T> out, Supplier<T> body) {
    T response;
    try {
      response = body.get();
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    } catch (RuntimeException e) {
      LOG.error("scheduler call failed", e);
      out.onError(
          Status.INTERNAL
              .withDescription("scheduler error: " + e)
              .withCause(e)
              .asRuntimeException());
      return;
    }
    out.onNext(response);
    out.onCompleted();
  }
}
