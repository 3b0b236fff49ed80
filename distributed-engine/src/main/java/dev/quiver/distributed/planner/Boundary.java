package dev.quiver.distributed.planner;

/** Why data crosses the network between a stage and its consumer. */
public enum Boundary {
  /** Rows are hashed on keys into the consumer's partitions (under a repartition). */
  HASH_SHUFFLE,
  /** Rows are dealt round-robin into the consumer's partitions. */
  ROUND_ROBIN_SHUFFLE,
  /** Every producer output goes to one consumer task (coalesce or sort-preserving merge). */
  GATHER,
  /** Every consumer task reads every producer output (a small join build side). */
  BROADCAST,
  /** The client reads the stage's outputs: the job's result. */
  RESULT
}
