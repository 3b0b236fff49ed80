package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Job status streams: the jobs an event changed are marked, and after the event each one's watchers
 * get one update (and the end of the stream once the job is terminal). Job loop only.
 */
final class StatusPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(StatusPublisher.class);

  private final Set<Job> changed = new LinkedHashSet<>();

  /** Marks {@code job} as changed: its watchers get an update after the current event. */
  void changed(Job job) {
    changed.add(job);
  }

  /** The job's status now. */
  static JobStatusUpdate snapshot(Job job) {
    JobStatusUpdate.Builder b =
        JobStatusUpdate.newBuilder()
            .setJobId(job.id)
            .setState(job.state)
            .setQueuePosition(job.queuePosition)
            .setResourceGroup(job.group.name())
            .setUser(job.user);
    for (StageRun stage : job.stages.values()) {
      StageStatus.Builder s =
          StageStatus.newBuilder()
              .setStageId(stage.id())
              .setTaskCount(stage.tasks.size())
              .setTasksSucceeded(stage.succeeded())
              .setAdaptive(stage.adaptiveNote);
      for (TaskRun t : stage.tasks) {
        if (t.summary != null) {
          s.addTasks(t.summary);
        }
      }
      b.addStages(s);
    }
    if (job.state == JobState.JOB_STATE_FAILED && job.error != null) {
      b.setError(job.error.getMessage()).setErrorInfo(job.error);
    }
    if (job.state == JobState.JOB_STATE_SUCCEEDED) {
      b.addAllFinalOutputs(job.finalStage.outputs());
    }
    return b.build();
  }

  /** Sends {@code job}'s status to a new watcher now, and its changes later until it ends. */
  void watch(Job job, ServerCallStreamObserver<JobStatusUpdate> out) {
    if (!send(out, snapshot(job))) {
      return;
    }
    if (job.terminal()) {
      out.onCompleted();
    } else {
      job.watchers.add(out);
    }
  }

  /** Sends one update to the watchers of every job that changed during the event. */
  void publish() {
    if (changed.isEmpty()) {
      return;
    }
    List<Job> jobsChanged = List.copyOf(changed);
    changed.clear();
    for (Job job : jobsChanged) {
      if (job.watchers.isEmpty()) {
        continue;
      }
      JobStatusUpdate update = snapshot(job);
      for (ServerCallStreamObserver<JobStatusUpdate> w : List.copyOf(job.watchers)) {
        if (!send(w, update)) {
          job.watchers.remove(w);
        } else if (job.terminal()) {
          w.onCompleted();
        }
      }
      if (job.terminal()) {
        job.watchers.clear();
      }
    }
  }

  /** Ends every watcher's stream with UNAVAILABLE: the scheduler is shutting down. */
  static void shutDown(Collection<Job> jobs) {
    for (Job job : jobs) {
      for (ServerCallStreamObserver<JobStatusUpdate> w : job.watchers) {
        try {
          w.onError(
              Status.UNAVAILABLE
                  .withDescription("the scheduler is shutting down")
                  .asRuntimeException());
        } catch (RuntimeException e) {
          LOG.debug("status watcher already gone", e);
        }
      }
      job.watchers.clear();
    }
  }

  private static boolean send(ServerCallStreamObserver<JobStatusUpdate> w, JobStatusUpdate u) {
    if (w.isCancelled()) {
      return false;
    }
    try {
      w.onNext(u);
      return true;
    } catch (RuntimeException e) {
      LOG.debug("status watcher went away", e);
      return false;
    }
  }
}
