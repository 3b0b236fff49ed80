package dev.quiver.binding.physical;

import dev.quiver.binding.settings.SessionConfig;

/** A rewrite of a physical plan, applied after planning in installation order. */
public interface PhysicalOptimizerRule {
  /** Name shown in EXPLAIN VERBOSE and errors. */
  String name();

  /** Returns the rewritten plan (or {@code plan} itself when nothing applies). */
  ExecutionPlan optimize(ExecutionPlan plan, SessionConfig config);
}
