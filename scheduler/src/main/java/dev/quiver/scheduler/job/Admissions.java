package dev.quiver.scheduler.job;

import dev.quiver.distributed.limits.QueryLimits;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.scheduler.admission.AdmissionQueue;
import dev.quiver.scheduler.admission.ResourceGroups;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jobs entering and leaving their resource groups: a submitted job is admitted or waits in its
 * group's {@link AdmissionQueue}; a job that ends admits the next, and the waiting jobs' positions
 * are published. {@link SchedulingPass} launches tasks of admitted jobs only. Job loop only.
 */
final class Admissions {

  private static final Logger LOG = LoggerFactory.getLogger(Admissions.class);

  private final ResourceGroups groups;
  private final AdmissionQueue queue = new AdmissionQueue();
  private final JobRegistry jobs;
  private final StatusPublisher status;

  Admissions(ResourceGroups groups, JobRegistry jobs, StatusPublisher status) {
    this.groups = groups;
    this.jobs = jobs;
    this.status = status;
  }

  /**
   * The group a job of {@code spec} submitted by {@code user} runs in, refusing it when the group's
   * queue is full; nothing is changed.
   *
   * @throws StatusRuntimeException INVALID_ARGUMENT when the session names no known group;
   *     RESOURCE_EXHAUSTED when the group's queue is full
   */
  ResourceGroups.Group choose(JobSpec spec, String user) {
    ResourceGroups.Group group;
    try {
      group = groups.select(user, spec.getSettingsOrDefault(QueryLimits.RESOURCE_GROUP_KEY, ""));
    } catch (IllegalArgumentException e) {
      throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
    }
    queue.requireRoom(group);
    return group;
  }

  /** Admits {@code job} into its group ({@link #choose} found room) or queues it. */
  void enter(Job job) {
    job.queuePosition = queue.offer(job.id, job.group);
    job.admitted = job.queuePosition == 0;
    if (!job.admitted) {
      LOG.info(
          "{} waits in resource group '{}' at position {}",
          job.describe(),
          job.group.name(),
          job.queuePosition);
    }
  }

  /** {@code job} ended: it leaves its group, admitting the next ones and moving the others up. */
  void leave(Job job) {
    List<String> admitted = queue.finished(job.id);
    job.admitted = false;
    job.queuePosition = 0;
    for (String id : admitted) {
      Job next = jobs.get(id);
      if (next != null) {
        next.admitted = true;
        LOG.info("{} admitted in resource group '{}'", next.describe(), next.group.name());
      }
    }
    for (String id : queue.waiting(job.group.name())) {
      Job waiting = jobs.get(id);
      if (waiting != null) {
        waiting.queuePosition = queue.position(id);
        status.changed(waiting);
      }
    }
    for (String id : admitted) {
      Job next = jobs.get(id);
      if (next != null) {
        next.queuePosition = 0;
        status.changed(next);
      }
    }
  }

  /** The groups jobs run in. */
  ResourceGroups groups() {
    return groups;
  }
}
