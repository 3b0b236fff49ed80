package dev.quiver.distributed.codec;

import java.util.ArrayList;
import java.util.List;

/**
 * A stage plan decoded on an executor, with the memory it shipped (memory-table batches). Close it
 * after the task has finished to release that memory.
 */
public final class DecodedStage implements AutoCloseable {
  private final StagePlan plan;
  private final List<AutoCloseable> resources;

  /** Wraps {@code plan}; {@code resources} are closed, last first, by {@link #close()}. */
  public DecodedStage(StagePlan plan, List<? extends AutoCloseable> resources) {
    this.plan = plan;
    this.resources = new ArrayList<>(resources);
  }

  /** The decoded plan. */
  public StagePlan plan() {
    return plan;
  }

  @Override
  public void close() {
    RuntimeException first = null;
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        if (first == null) {
          first = new IllegalStateException("releasing a decoded stage failed", e);
        }
      }
    }
    resources.clear();
    if (first != null) {
      throw first;
    }
  }
}
