package dev.quiver.executor.shuffle;

import dev.quiver.binding.errors.ResourcesExhaustedException;

/**
 * A task stopped because this executor's shuffle and spill files would pass its disk limit (or its
 * work directory is full): the executor's shortage, which another executor may not have, so the
 * task is reported retryable (clients see a {@link ResourcesExhaustedException} once every attempt
 * failed).
 */
public final class DiskLimitExceededException extends ResourcesExhaustedException {
  private static final long serialVersionUID = 1L;

  /** Creates the error; the message names the executor's limit and what holds the space. */
  public DiskLimitExceededException(String message) {
    super(message);
  }

  /** Creates the error with its cause (the failed write). */
  public DiskLimitExceededException(String message, Throwable cause) {
    super(message, cause);
  }
}
