/**
 * Distributed planning: {@link dev.quiver.distributed.planner.StagePlanner} cuts a single-node
 * physical plan into a {@link dev.quiver.distributed.planner.StageGraph} at its exchanges, and
 * {@link dev.quiver.distributed.planner.DistributedSettings} holds the session settings that steer
 * it. The session planner that runs the graph on a cluster is {@link
 * dev.quiver.distributed.DistributedQueryPlanner}, above both this package and the client.
 */
package dev.quiver.distributed.planner;
