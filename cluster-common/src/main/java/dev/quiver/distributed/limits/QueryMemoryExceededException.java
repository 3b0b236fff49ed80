package dev.quiver.distributed.limits;

import dev.quiver.binding.errors.ResourcesExhaustedException;

/**
 * A query was stopped for its memory: it held more than {@code quiver.query.max_memory} across the
 * cluster or {@code quiver.query.max_memory_per_executor} on one executor, or the cluster ran out
 * of memory and it held the most (the low-memory killer). The message names the limit, the query's
 * peak and the setting to raise. Over Flight SQL it is {@code RESOURCE_EXHAUSTED}.
 */
public final class QueryMemoryExceededException extends ResourcesExhaustedException {
  private static final long serialVersionUID = 1L;

  /** Creates the error. */
  public QueryMemoryExceededException(String message) {
    super(message);
  }
}
