package dev.quiver.distributed.limits;

import dev.quiver.binding.errors.ResourcesExhaustedException;

/**
 * The scheduler stopped a query that ran longer than {@code quiver.query.max_run_time} or waited in
 * its resource group's queue longer than {@code quiver.query.max_queued_time}; the message names
 * the setting. A resource limit, so over Flight SQL it is {@code RESOURCE_EXHAUSTED} too.
 */
public final class QueryTimeoutException extends ResourcesExhaustedException {
  private static final long serialVersionUID = 1L;

  /** Creates the error. */
  public QueryTimeoutException(String message) {
    super(message);
  }
}
