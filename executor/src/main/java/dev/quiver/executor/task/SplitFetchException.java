package dev.quiver.executor.task;

import dev.quiver.binding.errors.QuiverException;

/**
 * A task could not get its next scan splits from the scheduler. Transient when the scheduler was
 * unreachable or slow to answer: the scheduler then runs the task again, which reads the splits its
 * task was given first.
 */
public final class SplitFetchException extends QuiverException {
  private static final long serialVersionUID = 1L;

  private final boolean retryable;

  /** A failure; {@code retryable} when another attempt may succeed. */
  public SplitFetchException(String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
  }

  /** Whether another attempt of the task may succeed. */
  public boolean retryable() {
    return retryable;
  }
}
