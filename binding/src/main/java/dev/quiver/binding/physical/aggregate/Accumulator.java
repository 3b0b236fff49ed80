package dev.quiver.binding.physical.aggregate;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * Per-group state of one aggregate call, held in primitive arrays indexed by group id and updated a
 * batch at a time.
 */
interface Accumulator {
  /** Makes room for group ids below {@code groups}. */
  void ensureCapacity(int groups);

  /**
   * Folds raw argument rows into their groups: row i goes to {@code gids[i]} when {@code use} is
   * null or {@code use[i]} (the caller has already excluded filtered rows and null arguments).
   */
  void update(FieldVector[] args, int[] gids, int rows, boolean[] use);

  /**
   * Folds intermediate state rows (the columns of {@link Accumulators#stateFields}) into groups.
   */
  void merge(FieldVector[] state, int[] gids, int rows);

  /** Builds the state columns for groups {@code gids[0..n)}. */
  List<FieldVector> emitState(int[] gids, int n, BufferAllocator allocator);

  /** Builds the final value column for groups {@code gids[0..n)}. */
  FieldVector emitFinal(int[] gids, int n, BufferAllocator allocator);

  /** Heap bytes held, for memory accounting. */
  long estimatedBytes();

  /** Drops all groups. */
  void reset();
}
