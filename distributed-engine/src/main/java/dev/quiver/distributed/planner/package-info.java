/**
 * Distributed planning: {@link dev.quiver.distributed.planner.StagePlanner} cuts a single-node
 * physical plan into a {@link dev.quiver.distributed.planner.StageGraph} at its exchanges, and
 * {@link dev.quiver.distributed.planner.DistributedQueryPlanner} wraps the session's planner so
 * that every query goes through it.
 */
package dev.quiver.distributed.planner;
