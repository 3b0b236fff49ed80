package dev.quiver.binding.datasource.parquet;

import java.util.List;
import org.apache.parquet.column.ColumnDescriptor;

/**
 * One Parquet leaf column of an Arrow column: how to reach its values from the top-level vector
 * ({@code steps}, the first being the top-level field itself and the last the leaf) and how they
 * are encoded ({@code kind}).
 *
 * @param topLevel index of the Arrow column in the batch
 * @param steps the way down to the leaf
 * @param kind the leaf's value conversion
 * @param descriptor the Parquet column the values go to
 * @param arrowPath the Arrow field names down to the leaf, for messages
 */
record LeafColumn(
    int topLevel, List<Step> steps, ValueKind kind, ColumnDescriptor descriptor, String arrowPath) {

  /** What a step of the way down is. */
  enum StepKind {
    STRUCT,
    LIST,
    LARGE_LIST,
    FIXED_SIZE_LIST,
    LEAF
  }

  /**
   * One level of nesting.
   *
   * @param kind the Arrow vector's shape at this level
   * @param nullable whether the level is OPTIONAL in Parquet (adds a definition level)
   * @param repetition the repetition level of a list's items (lists only)
   * @param child the struct child leading to the leaf (structs only)
   */
  record Step(StepKind kind, boolean nullable, int repetition, int child) {}

  /** Whether the leaf is a top-level column (the fast path: no levels to compute). */
  boolean flat() {
    return steps.size() == 1;
  }
}
