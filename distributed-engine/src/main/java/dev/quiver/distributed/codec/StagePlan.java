package dev.quiver.distributed.codec;

import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;

/**
 * What every task of one stage runs: task {@code i} executes partition {@code i} of {@code root}
 * and splits its rows into the partitions of {@code output} (hash or round-robin over the
 * consumers' partition count, or single).
 */
public record StagePlan(ExecutionPlan root, Partitioning output) {}
