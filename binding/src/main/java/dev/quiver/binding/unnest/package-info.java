/**
 * Quiver's own subquery unnesting ({@link dev.quiver.binding.unnest.Unnesting}): every correlate
 * (dependent join) left by turning subqueries into correlates is pushed down its right side over
 * the de-duplicated domain of the outer columns it reads until no correlation is left, as in
 * Neumann and Kemper, "Unnesting Arbitrary Queries" (BTW 2015). Selected by {@code
 * quiver.optimizer.unnesting = quiver}; a shape it does not handle is refused as a whole ({@link
 * dev.quiver.binding.unnest.Unnesting.UnsupportedShape}) and the caller falls back to Calcite's
 * decorrelator.
 */
package dev.quiver.binding.unnest;
