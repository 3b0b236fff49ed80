/**
 * Sorting: per-partition sorts over key comparators that spill sorted runs to Arrow IPC files under
 * memory pressure, and the merge of sorted partitions (or runs) that keeps their order.
 */
package dev.quiver.binding.physical.sort;
