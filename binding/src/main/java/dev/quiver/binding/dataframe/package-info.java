/**
 * DataFrame calls as Calcite relational algebra: each {@code DataFrame} operation and {@code Expr}
 * becomes {@code RelNode}s and {@code RexNode}s built with a {@code RelBuilder}, so SQL and
 * DataFrame queries share one optimizer and one planner.
 */
package dev.quiver.binding.dataframe;
