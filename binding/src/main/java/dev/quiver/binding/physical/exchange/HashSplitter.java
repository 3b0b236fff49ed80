package dev.quiver.binding.physical.exchange;

import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Hashing;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Routes rows to partitions by the hash of key expressions. It is the one routing of the engine: a
 * repartition inside a process and a stage's shuffle output both split with it, so that a shuffle
 * read and a co-partitioned join find equal keys in the same partition wherever they were split.
 */
public final class HashSplitter {
  private final List<PhysicalExpr> keys;
  private final int partitions;

  /**
   * Creates a splitter.
   *
   * @param keys the expressions whose values' hash picks a row's partition
   * @param partitions how many partitions rows go to
   */
  public HashSplitter(List<PhysicalExpr> keys, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException(
          "rows are split over at least one partition: " + partitions);
    }
    this.keys = List.copyOf(keys);
    this.partitions = partitions;
  }

  /** How many partitions rows go to. */
  public int partitions() {
    return partitions;
  }

  /**
   * The rows of {@code batch} by partition: element {@code p} lists, in row order, the rows that go
   * to partition {@code p} (its length is their count). The key values are evaluated in {@code
   * allocator} and released before this returns.
   */
  public int[][] split(VectorSchemaRoot batch, BufferAllocator allocator) {
    int rows = batch.getRowCount();
    int[] target = new int[rows];
    List<FieldVector> values = new ArrayList<>(keys.size());
    try {
      for (PhysicalExpr e : keys) {
        values.add(e.evaluate(batch, allocator));
      }
      Hashing.hashRows(values, rows, target);
    } finally {
      values.forEach(FieldVector::close);
    }
    int[] counts = new int[partitions];
    for (int i = 0; i < rows; i++) {
      target[i] = Hashing.partition(target[i], partitions);
      counts[target[i]]++;
    }
    int[][] byPartition = new int[partitions][];
    for (int p = 0; p < partitions; p++) {
      byPartition[p] = new int[counts[p]];
    }
    int[] fill = new int[partitions];
    for (int i = 0; i < rows; i++) {
      int p = target[i];
      byPartition[p][fill[p]++] = i;
    }
    return byPartition;
  }
}
