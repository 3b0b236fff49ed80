/**
 * Shuffle data on an executor: the plan node that writes a task's output partitions, the store of
 * the partitions its tasks wrote (memory, spilled to the work directory past a limit, expired after
 * a TTL), the Flight producer that serves them to other executors and clients, and the client that
 * reads this executor's own partitions from the store instead of over the network.
 */
package dev.quiver.executor.shuffle;
