package dev.quiver.binding.physical.join;

/** How a hash join's inputs are distributed over its output partitions. */
public enum PartitionMode {
  /**
   * Both inputs are hash-partitioned on the join keys into the same count; partition i joins with
   * i.
   */
  PARTITIONED,
  /** The build side is gathered whole and shared; output partitions follow the probe side. */
  COLLECT_BUILD
}
