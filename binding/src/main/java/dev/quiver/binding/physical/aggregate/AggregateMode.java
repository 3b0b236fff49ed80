package dev.quiver.binding.physical.aggregate;

/** Which half of a two-phase aggregation an operator performs. */
public enum AggregateMode {
  /** Consumes raw rows, emits group keys plus intermediate state columns per input partition. */
  PARTIAL,
  /** Consumes PARTIAL output (keys then states, hash-partitioned on keys), emits final values. */
  FINAL,
  /** Consumes raw rows and emits final values in one step. */
  SINGLE
}
