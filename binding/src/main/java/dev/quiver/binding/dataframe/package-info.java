/**
 * The DataFrame API and its translation: {@link dev.quiver.binding.dataframe.DataFrame} (a lazy
 * query), {@link dev.quiver.binding.dataframe.Expr} (column expressions), {@link
 * dev.quiver.binding.dataframe.Row}, {@link dev.quiver.binding.dataframe.JoinType} (shared with the
 * physical join operators) and {@link dev.quiver.binding.dataframe.Cancellable}; each operation and
 * expression becomes Calcite {@code RelNode}s and {@code RexNode}s built with a {@code RelBuilder},
 * so SQL and DataFrame queries share one optimizer and one planner. The implementation of {@code
 * DataFrame} is the SQL package's {@code DataFrameImpl}.
 */
package dev.quiver.binding.dataframe;
