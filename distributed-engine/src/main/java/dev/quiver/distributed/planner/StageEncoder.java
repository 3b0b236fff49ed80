package dev.quiver.distributed.planner;

import dev.quiver.distributed.codec.StagePlan;

/** Turns a stage plan into the bytes a task launch carries (the plan codec). */
@FunctionalInterface
public interface StageEncoder {
  /** Encodes {@code stage}, failing with a clear error when some part cannot travel. */
  byte[] encode(StagePlan stage, long maxShippedBytes);
}
