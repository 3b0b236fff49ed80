package dev.quiver.distributed.client;

import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobStatusUpdate;

/** Told about every job that succeeds on a cluster runtime (e.g. to print its stages). */
@FunctionalInterface
public interface JobListener {
  /** Job {@code status.getJobId()} of {@code graph} succeeded with this final status. */
  void jobSucceeded(StageGraph graph, JobStatusUpdate status);
}
