/**
 * The client side of a cluster: how to reach it ({@link
 * dev.quiver.distributed.client.ClusterConfig}), the scheduler connection ({@link
 * dev.quiver.distributed.client.SchedulerClient}), a running job ({@link
 * dev.quiver.distributed.client.JobHandle}) and the plan node that runs a stage graph and streams
 * its result ({@link dev.quiver.distributed.client.DistributedQueryExec}).
 */
package dev.quiver.distributed.client;
