/**
 * Spill files: rows written to Arrow IPC files in the query's spill directory when an operator's
 * memory reservation is refused (sorted runs of a sort, hash partitions of a join), read back in
 * batches and deleted when closed.
 */
package dev.quiver.binding.physical.spill;
