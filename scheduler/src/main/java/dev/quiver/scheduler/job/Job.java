package dev.quiver.scheduler.job;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.limits.QueryLimits;
import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.scheduler.admission.ResourceGroups;
import dev.quiver.scheduler.time.SchedulerClock;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A submitted job and everything the scheduler tracks about it; touched by the job loop only. */
final class Job {

  final String id;

  /** Submission order: the shared task queue serves earlier jobs first. */
  final long seq;

  final JobSpec spec;
  final Map<Integer, StageRun> stages = new LinkedHashMap<>();
  final StageRun finalStage;
  JobState state = JobState.JOB_STATE_QUEUED;
  ErrorInfo error;

  /** Every executor that ran one of the job's attempts, by id: they hold its shuffle data. */
  final Map<String, ExecutorInfo> executorsUsed = new LinkedHashMap<>();

  final List<ServerCallStreamObserver<JobStatusUpdate>> watchers = new ArrayList<>();

  /** Who submitted it ("" when the cluster has no users). */
  String user = "";

  /** The resource group it runs in. */
  ResourceGroups.Group group = ResourceGroups.single().groups().get(0);

  /** Its limits: its session's, capped by the scheduler's ({@link LimitChecks}). */
  QueryLimits limits = QueryLimits.NONE;

  /** Whether its group admitted it: only admitted jobs' tasks are launched ({@link Admissions}). */
  boolean admitted = true;

  /** Its place in its group's queue while it waits for admission (1 = next), else 0. */
  int queuePosition;

  /**
   * Most Arrow memory the job's tasks held on each executor, by executor id, as the executors'
   * heartbeats and finished tasks reported it (job loop only).
   */
  final Map<String, Long> peakMemoryByExecutor = new TreeMap<>();

  /**
   * Most the job held on all executors together: what one round of heartbeats saw, and never less
   * than its peak on any one executor (job loop only).
   */
  long peakMemoryBytes;

  /**
   * Records the job's peak on one executor ({@code clusterPeak}: what all executors held together
   * at one time, when known, else 0).
   */
  void notePeakMemory(String executorId, long executorPeak, long clusterPeak) {
    if (executorPeak > 0) {
      peakMemoryByExecutor.merge(executorId, executorPeak, Math::max);
    }
    peakMemoryBytes = Math.max(peakMemoryBytes, Math.max(executorPeak, clusterPeak));
  }

  /** When the job started waiting for an executor to exist, or -1. */
  long waitingSinceNanos = -1;

  long finishedAtNanos;
  boolean dataRemoved;

  /** When its first task attempt was launched (the end of its queueing), or -1. */
  long startedAtNanos = -1;

  /** Monotonic and wall-clock times of submission, and wall-clock time of the end (0 until). */
  final long submittedAtNanos;

  final long submittedAtMillis;
  long finishedAtMillis;

  /** The client's submission id ("" when none), for answering a repeated submission. */
  final String submissionId;

  /** The secret that calls on the job and reads of its shuffle output must carry. */
  final ByteString capability;

  /** Its SQL text without secrets ({@link JobText}): what logs, views and the history show. */
  final String name;

  Job(
      String id,
      long seq,
      JobSpec spec,
      String submissionId,
      ByteString capability,
      SchedulerClock clock) {
    this.id = id;
    this.submittedAtNanos = clock.nanoTime();
    this.submittedAtMillis = clock.unixMillis();
    this.capability = capability;
    this.seq = seq;
    this.spec = spec;
    this.name = JobText.of(spec);
    this.submissionId = submissionId;
    for (StageSpec s : spec.getStagesList()) {
      stages.put(s.getStageId(), new StageRun(this, s));
    }
    for (StageRun s : stages.values()) {
      for (int input : s.spec.getInputStageIdsList()) {
        s.inputs.add(stages.get(input));
      }
    }
    this.finalStage = stages.get(spec.getFinalStageId());
  }

  /** Attempts of its tasks running now (speculative copies included): its use of task slots. */
  int runningTasks() {
    int n = 0;
    for (StageRun stage : stages.values()) {
      for (TaskRun t : stage.tasks) {
        n += t.running.size();
      }
    }
    return n;
  }

  boolean terminal() {
    return state == JobState.JOB_STATE_SUCCEEDED
        || state == JobState.JOB_STATE_FAILED
        || state == JobState.JOB_STATE_CANCELLED;
  }

  String describe() {
    return name.isEmpty() ? "job " + id : "job " + id + " (" + name + ")";
  }
}
