package dev.quiver.distributed.shuffle;

import dev.quiver.binding.errors.QuiverException;

/**
 * A producer's output partition could not be fetched (its executor is gone, or no longer holds it).
 * The scheduler reacts by re-running the producer task rather than failing the job.
 */
public final class ShuffleFetchException extends QuiverException {
  private final transient ShuffleLocation location;

  /** Creates the exception for {@code location}. */
  public ShuffleFetchException(ShuffleLocation location, String message, Throwable cause) {
    super("Could not fetch " + location + ": " + message, cause);
    this.location = location;
  }

  /** The partition that could not be fetched. */
  public ShuffleLocation location() {
    return location;
  }
}
