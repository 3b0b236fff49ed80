package dev.quiver.distributed.client;

import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobStatusUpdate;

/** Told about the jobs of a cluster runtime (e.g. to print their stages or follow progress). */
@FunctionalInterface
public interface JobListener {
  /** Job {@code status.getJobId()} of {@code graph} succeeded with this final status. */
  void jobSucceeded(StageGraph graph, JobStatusUpdate status);

  /**
   * Every status update of a job while the client waits for it (stage and task progress), on the
   * thread that runs the query; a listener that blocks delays the query.
   */
  default void jobUpdated(StageGraph graph, JobStatusUpdate status) {}

  /**
   * A job of {@code graph} was accepted by the scheduler, before its first status update; the
   * handle holds the job's id and capability (with which a listener may cancel it).
   */
  default void jobSubmitted(StageGraph graph, JobHandle job) {}
}
