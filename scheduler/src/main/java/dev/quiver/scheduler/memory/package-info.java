/**
 * Memory per query across the cluster: {@link dev.quiver.scheduler.memory.ClusterMemory} sums what
 * the executors' heartbeats say each job holds, and {@link
 * dev.quiver.scheduler.memory.LowMemoryKiller} decides which job to stop: one over its {@code
 * quiver.query.max_memory}, or, when an executor's memory is full, the one holding the most. Pure
 * state and decisions; the job loop owns them and stops the jobs.
 */
package dev.quiver.scheduler.memory;
