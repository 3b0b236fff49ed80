package dev.quiver.binding.physical;

import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.List;

/** How an operator's output rows are spread over its output partitions. */
public record Partitioning(Kind kind, int partitionCount, List<PhysicalExpr> hashExprs) {
  /** The partitioning schemes. */
  public enum Kind {
    /** One partition holds all rows. */
    SINGLE,
    /** Rows are dealt out in turn; no key relation between partitions. */
    ROUND_ROBIN,
    /** Rows with equal hash keys are in the same partition. */
    HASH,
    /** Rows are split in some unspecified way (e.g. by file). */
    UNKNOWN
  }

  /** Validates and freezes the fields. */
  public Partitioning {
    if (partitionCount < 1) {
      throw new IllegalArgumentException("partition count must be >= 1: " + partitionCount);
    }
    hashExprs = List.copyOf(hashExprs);
  }

  /** All rows in one partition. */
  public static Partitioning single() {
    return new Partitioning(Kind.SINGLE, 1, List.of());
  }

  /** Rows dealt round-robin over {@code n} partitions. */
  public static Partitioning roundRobin(int n) {
    return new Partitioning(Kind.ROUND_ROBIN, n, List.of());
  }

  /** Rows hashed on {@code exprs} into {@code n} partitions. */
  public static Partitioning hash(List<PhysicalExpr> exprs, int n) {
    return new Partitioning(Kind.HASH, n, exprs);
  }

  /** Rows split over {@code n} partitions in an unspecified way. */
  public static Partitioning unknown(int n) {
    return n == 1 ? single() : new Partitioning(Kind.UNKNOWN, n, List.of());
  }

  @Override
  public String toString() {
    return switch (kind) {
      case SINGLE -> "Single";
      case ROUND_ROBIN -> "RoundRobin(" + partitionCount + ")";
      case HASH -> "Hash(" + hashExprs + ", " + partitionCount + ")";
      case UNKNOWN -> "Unknown(" + partitionCount + ")";
    };
  }
}
