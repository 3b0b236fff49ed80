package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.KeyFilterBits;
import dev.quiver.distributed.proto.RuntimeFilterSpec;
import dev.quiver.distributed.wire.KeyFilters;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which plan a stage with a runtime filter (see {@link RuntimeFilterSpec}) runs, once the input
 * whose keys filter it is complete and before its first task is launched: the exact filter (every
 * task reads that input whole) when the input wrote at most {@code max_bytes}; else the Bloom
 * filter of its keys that its tasks built, when it wrote few enough rows for the filter to rule out
 * most others; else the planned plan.
 */
final class RuntimeFilterChoice {
  /**
   * A merged Bloom filter with more of its bits set lets too many rows through to be worth its
   * cost: a key tests eight bits, so a share f set lets about f^8 of unmatched rows pass (5.8% at
   * 70%). Tasks fold their filters to 16-32 bits a key (39% or 22% set) unless the planned size
   * caps them.
   */
  static final double MAX_FILL = 0.7;

  private RuntimeFilterChoice() {}

  /** Chooses {@code stage}'s plan; returns what was chosen, for the stage's status. */
  static String apply(StageRun stage) {
    RuntimeFilterSpec filter = stage.spec.getRuntimeFilter();
    int keys = filter.getInputStageId();
    Optional<StageRun> keyStage = stage.inputs.stream().filter(s -> s.id() == keys).findFirst();
    Optional<AdaptiveTasks.InputSizes> sizes = keyStage.flatMap(AdaptiveTasks::sizes);
    if (sizes.isEmpty()) {
      return "runtime filter from stage " + keys + " not used: its output sizes are unknown";
    }
    long bytes = sizes.get().totalBytes();
    long rows = sizes.get().totalRows();
    if (bytes <= filter.getMaxBytes()) {
      stage.plan = filter.getPlan();
      stage.planText = filter.getPlanText();
      return "rows filtered by the join keys of stage "
          + keys
          + " ("
          + rows
          + " rows, "
          + bytes
          + " bytes)";
    }
    String tooLarge = "it wrote " + bytes + " bytes, over " + filter.getMaxBytes();
    if (filter.getBloomPlan().isEmpty()) {
      return "runtime filter from stage " + keys + " not used: " + tooLarge;
    }
    if (rows > filter.getBloomMaxRows()) {
      return "runtime filter from stage "
          + keys
          + " not used: "
          + tooLarge
          + ", and "
          + rows
          + " rows, over the Bloom filter's "
          + filter.getBloomMaxRows();
    }
    Optional<KeyFilters.Merged> merged =
        taskFilters(keyStage.get(), stage.id()).flatMap(KeyFilters::merge);
    if (merged.isEmpty()) {
      return "runtime filter from stage "
          + keys
          + " not used: "
          + tooLarge
          + ", and a task of it reported no Bloom filter";
    }
    if (merged.get().fill() > MAX_FILL) {
      return "runtime filter from stage "
          + keys
          + " not used: "
          + tooLarge
          + ", and its Bloom filter has "
          + percent(merged.get().fill())
          + " of its bits set";
    }
    stage.plan = filter.getBloomPlan();
    stage.planText = filter.getBloomPlanText();
    stage.keyFilter =
        KeyFilterBits.newBuilder()
            .setFilterId(stage.id())
            .setBits(com.google.protobuf.ByteString.copyFrom(merged.get().bytes()))
            .build();
    return "rows filtered by a Bloom filter of the join keys of stage "
        + keys
        + " ("
        + rows
        + " rows, "
        + merged.get().bits()
        + " bits, "
        + percent(merged.get().fill())
        + " set)";
  }

  /**
   * The Bloom filters for stage {@code filterId} that the tasks of {@code keyStage} reported, or
   * empty when one of its tasks that ran did not report one.
   */
  private static Optional<List<byte[]>> taskFilters(StageRun keyStage, int filterId) {
    List<byte[]> parts = new ArrayList<>();
    for (TaskRun t : keyStage.tasks) {
      if (t.skipped) {
        continue;
      }
      Optional<byte[]> bits =
          t.keyFilters.stream()
              .filter(f -> f.getFilterId() == filterId)
              .map(f -> f.getBits().toByteArray())
              .findFirst();
      if (bits.isEmpty()) {
        return Optional.empty();
      }
      parts.add(bits.get());
    }
    return Optional.of(parts);
  }

  private static String percent(double share) {
    return String.format(Locale.ROOT, "%.0f%%", 100 * share);
  }
}
