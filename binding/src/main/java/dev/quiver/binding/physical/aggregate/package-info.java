/**
 * Hash aggregation: {@link dev.quiver.binding.physical.aggregate.HashAggregateExec} in partial,
 * final and single modes over a group table of key hashes, the accumulators of every aggregate
 * function, and spilling states sorted by key hash to Arrow IPC runs when the memory pool refuses
 * more.
 */
package dev.quiver.binding.physical.aggregate;
