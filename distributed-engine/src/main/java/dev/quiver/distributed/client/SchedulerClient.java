package dev.quiver.distributed.client;

import com.google.protobuf.ByteString;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.distributed.proto.CancelJobRequest;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobStatusRequest;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.ListExecutorsRequest;
import dev.quiver.distributed.proto.ReleaseJobRequest;
import dev.quiver.distributed.proto.ReleaseJobResponse;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.SubmitJobRequest;
import dev.quiver.distributed.proto.SubmitJobResponse;
import dev.quiver.distributed.security.AccessDeniedException;
import dev.quiver.distributed.security.TlsDiagnosis;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.wire.WireProtocol;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** A client's connection to the scheduler: executors, job submission, status, cancel, release. */
public final class SchedulerClient implements AutoCloseable {
  private static final long CALL_TIMEOUT_SECONDS = 30;

  /** Longest {@link #close()} waits for releases still under way. */
  private static final long RELEASE_WAIT_MILLIS = 5_000;

  private final ClusterConfig config;
  private final ManagedChannel channel;
  private final SchedulerGrpc.SchedulerBlockingStub blocking;
  private final SchedulerGrpc.SchedulerStub async;

  /** Releases sent and not yet answered (guarded by this). */
  private int releasing;

  /** Connects (lazily) to the scheduler in {@code config}, with its TLS and token settings. */
  public SchedulerClient(ClusterConfig config) {
    this.config = config;
    // An embedded cluster's scheduler is reached in-process (SameProcessServers).
    this.channel =
        GrpcTransport.NETTY
            .channelBuilder(config.schedulerHost(), config.schedulerPort(), config.security())
            .maxInboundMessageSize(64 << 20)
            .build();
    this.blocking = SchedulerGrpc.newBlockingStub(channel);
    this.async = SchedulerGrpc.newStub(channel);
  }

  /** The scheduler's address. */
  public String target() {
    return config.target();
  }

  /**
   * The executors currently alive.
   *
   * @throws UnreachableException when the scheduler cannot be reached or does not answer
   */
  public List<ExecutorStatus> executors() {
    try {
      return blocking
          .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .listExecutors(ListExecutorsRequest.getDefaultInstance())
          .getExecutorsList();
    } catch (StatusRuntimeException e) {
      throw failure("list the cluster's executors", e);
    }
  }

  /** Every executor the scheduler knows, lost ones included, with its last heartbeat. */
  public List<ExecutorStatus> executorsIncludingLost() {
    try {
      return blocking
          .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .listExecutors(ListExecutorsRequest.newBuilder().setIncludeLost(true).build())
          .getExecutorsList();
    } catch (StatusRuntimeException e) {
      throw failure("list the cluster's executors", e);
    }
  }

  /** The scheduler could not be reached (or did not answer in time): the call may be retried. */
  public static final class UnreachableException extends QuiverException {
    UnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * A job the scheduler accepted: its id and its capability, which every later call on the job (and
   * every read of its output) needs. The capability is a secret: {@link #toString()} leaves it out.
   */
  public record SubmittedJob(String jobId, ByteString capability) {
    @Override
    public String toString() {
      return "SubmittedJob[" + jobId + ", capability=<redacted>]";
    }
  }

  /** Submits a job. */
  public SubmittedJob submit(JobSpec job) {
    return submit(job, "");
  }

  /**
   * Submits a job. A non-empty {@code submissionId} makes retries safe: the scheduler answers a
   * submission it already accepted with the same job.
   *
   * @throws UnreachableException when the scheduler cannot be reached or does not answer
   * @throws AccessDeniedException when the scheduler refuses this client's token
   */
  public SubmittedJob submit(JobSpec job, String submissionId) {
    try {
      SubmitJobResponse response =
          blocking
              .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
              .submitJob(
                  SubmitJobRequest.newBuilder()
                      .setProtocolVersion(WireProtocol.VERSION)
                      .setJob(job)
                      .setSubmissionId(submissionId)
                      .build());
      return new SubmittedJob(response.getJobId(), response.getJobCapability());
    } catch (StatusRuntimeException e) {
      throw failure("submit a job", e);
    }
  }

  /**
   * Follows a job's status; {@code observer} gets every update until the stream ends (with
   * PERMISSION_DENIED when {@code capability} is not the job's).
   */
  public void watch(String jobId, ByteString capability, StreamObserver<JobStatusUpdate> observer) {
    async.jobStatus(
        JobStatusRequest.newBuilder().setJobId(jobId).setJobCapability(capability).build(),
        observer);
  }

  /** Retries connecting to the scheduler now rather than after gRPC's reconnect backoff. */
  public void reconnectNow() {
    channel.resetConnectBackoff();
  }

  /**
   * Cancels a job; false when it had already finished.
   *
   * @throws AccessDeniedException when {@code capability} is not the job's
   */
  public boolean cancel(String jobId, ByteString capability) {
    try {
      return blocking
          .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .cancelJob(
              CancelJobRequest.newBuilder().setJobId(jobId).setJobCapability(capability).build())
          .getCancelled();
    } catch (StatusRuntimeException e) {
      throw failure("cancel job " + jobId, e);
    }
  }

  /**
   * Tells the scheduler the job's output has been read, so executors can delete it.
   *
   * @throws AccessDeniedException when {@code capability} is not the job's
   */
  public void release(String jobId, ByteString capability) {
    try {
      blocking
          .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .releaseJob(
              ReleaseJobRequest.newBuilder().setJobId(jobId).setJobCapability(capability).build());
    } catch (StatusRuntimeException e) {
      throw failure("release job " + jobId, e);
    }
  }

  /**
   * As {@link #release}, without waiting for the scheduler's answer: a query's end does not wait a
   * round trip for it. {@code failed} gets the error of a release that failed; {@link #close()}
   * waits (up to 5 s) for the releases still under way.
   */
  public void releaseLater(String jobId, ByteString capability, Consumer<QuiverException> failed) {
    synchronized (this) {
      releasing++;
    }
    try {
      async
          .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .releaseJob(
              ReleaseJobRequest.newBuilder().setJobId(jobId).setJobCapability(capability).build(),
              new StreamObserver<ReleaseJobResponse>() {
                @Override
                public void onNext(ReleaseJobResponse value) {}

                @Override
                public void onError(Throwable t) {
                  released();
                  failed.accept(
                      failure(
                          "release job " + jobId, Status.fromThrowable(t).asRuntimeException()));
                }

                @Override
                public void onCompleted() {
                  released();
                }
              });
    } catch (RuntimeException e) {
      released();
      throw e;
    }
  }

  private synchronized void released() {
    releasing--;
    notifyAll();
  }

  private QuiverException failure(String what, StatusRuntimeException e) {
    Status status = e.getStatus();
    String description = status.getDescription();
    if (description != null && description.indexOf('\n') >= 0) {
      // Netty appends its channel pipeline on further lines.
      description = description.substring(0, description.indexOf('\n'));
    }
    String tls = TlsDiagnosis.explain(status, config.security().clientTls());
    String message =
        refused(status)
            ? "Could not "
                + what
                + ": nothing listens at "
                + config.target()
                + " (connection refused); is the scheduler running there, and is that its gRPC"
                + " port (its --port, default 50050)?"
            : "Could not "
                + what
                + " on the scheduler at "
                + config.target()
                + ": "
                + status.getCode()
                + (description == null ? "" : " (" + description + ")")
                + tls;
    if (status.getCode() == Status.Code.UNAUTHENTICATED
        || status.getCode() == Status.Code.PERMISSION_DENIED) {
      return new AccessDeniedException(message, e);
    }
    if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED) {
      // A full resource group queue (or a message over the size limit): retrying at once fails too.
      return new ResourcesExhaustedException(message, e);
    }
    boolean unreachable =
        status.getCode() == Status.Code.UNAVAILABLE
            || status.getCode() == Status.Code.DEADLINE_EXCEEDED;
    return unreachable && tls.isEmpty()
        ? new UnreachableException(message, e)
        : new QuiverException(message, e);
  }

  /** Whether the call failed because no process listens at the address. */
  private static boolean refused(Status status) {
    for (Throwable t = status.getCause(); t != null; t = t.getCause()) {
      if (t instanceof java.net.ConnectException
          && String.valueOf(t.getMessage()).startsWith("Connection refused")) {
        return true;
      }
    }
    return false;
  }

  /** Waits (up to 5 s) for releases still under way, then closes the connection. */
  @Override
  public void close() {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RELEASE_WAIT_MILLIS);
    synchronized (this) {
      try {
        while (releasing > 0 && deadline - System.nanoTime() > 0) {
          TimeUnit.NANOSECONDS.timedWait(this, deadline - System.nanoTime());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
