package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.RuntimeFilterSpec;
import java.util.Optional;

/**
 * Whether a stage with a runtime filter (see {@link RuntimeFilterSpec}) runs the filtered plan:
 * only when the input whose keys filter it turned out small, since every task reads that input
 * whole. Decided once, when the stage's inputs are complete and before its first task is launched.
 */
final class RuntimeFilterChoice {
  private RuntimeFilterChoice() {}

  /** Chooses {@code stage}'s plan; returns what was chosen, for the stage's status. */
  static String apply(StageRun stage) {
    RuntimeFilterSpec filter = stage.spec.getRuntimeFilter();
    int keys = filter.getInputStageId();
    Optional<AdaptiveTasks.InputSizes> sizes =
        stage.inputs.stream().filter(s -> s.id() == keys).findFirst().flatMap(AdaptiveTasks::sizes);
    if (sizes.isEmpty()) {
      return "runtime filter from stage " + keys + " not used: its output sizes are unknown";
    }
    long bytes = sizes.get().totalBytes();
    if (bytes > filter.getMaxBytes()) {
      return "runtime filter from stage "
          + keys
          + " not used: it wrote "
          + bytes
          + " bytes, over "
          + filter.getMaxBytes();
    }
    stage.plan = filter.getPlan();
    stage.filtered = true;
    return "rows filtered by the join keys of stage "
        + keys
        + " ("
        + sizes.get().totalRows()
        + " rows, "
        + bytes
        + " bytes)";
  }
}
