/**
 * The physical plan model: {@link dev.quiver.binding.physical.ExecutionPlan} nodes, each producing
 * one {@link dev.quiver.binding.physical.BatchStream} per output partition under a {@link
 * dev.quiver.binding.physical.TaskContext} (allocator, settings, cancellation), with their
 * partitioning, metrics and the memory pool spilling operators reserve from. The operators live in
 * the sub-packages.
 */
package dev.quiver.binding.physical;
