/**
 * Subplans read by several parents of one plan: a WITH view or view used twice, a repeated
 * subquery. {@link dev.quiver.binding.physical.share.SharedSubplanExec} runs each partition of its
 * input once per execution and hands every batch to each reader, holding batches (in memory, or
 * spilled) only until the slowest reader has taken them.
 */
package dev.quiver.binding.physical.share;
