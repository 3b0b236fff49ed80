/**
 * Each query's memory on this executor: {@link dev.quiver.executor.memory.QueryMemory} gives every
 * job an allocator between the executor's and its tasks', limited by {@code
 * quiver.query.max_memory_per_executor}, reports what each job holds in the heartbeat, and lets a
 * task that finds the executor's memory full wait for the scheduler's low-memory killer instead of
 * failing at once.
 */
package dev.quiver.executor.memory;
