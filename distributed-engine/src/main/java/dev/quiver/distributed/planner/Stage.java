package dev.quiver.distributed.planner;

import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.distributed.codec.StagePlan;
import java.util.List;

/**
 * One stage of a distributed plan: {@link #taskCount()} tasks run partitions of {@code root}; each
 * writes its rows split by {@code output} for the consumer, which reads them across {@code
 * boundary}.
 *
 * @param inputStageIds the stages whose outputs this stage's shuffle readers consume
 * @param outputRowLimit rows its consumer needs at most from all its tasks together (a LIMIT above
 *     the boundary), or -1: the scheduler stops running its tasks once they wrote that many
 */
public record Stage(
    int id,
    ExecutionPlan root,
    Partitioning output,
    Boundary boundary,
    List<Integer> inputStageIds,
    long outputRowLimit) {

  /** Validates and freezes the fields. */
  public Stage {
    inputStageIds = List.copyOf(inputStageIds);
    if (outputRowLimit < -1) {
      throw new IllegalArgumentException("row limit must be -1 (none) or >= 0: " + outputRowLimit);
    }
  }

  /** A stage whose consumer needs all its rows. */
  public Stage(
      int id,
      ExecutionPlan root,
      Partitioning output,
      Boundary boundary,
      List<Integer> inputStageIds) {
    this(id, root, output, boundary, inputStageIds, -1);
  }

  /** Number of tasks: one per partition of the root. */
  public int taskCount() {
    return root.partitionCount();
  }

  /** What the codec ships to the executors. */
  public StagePlan plan() {
    return new StagePlan(root, output);
  }
}
