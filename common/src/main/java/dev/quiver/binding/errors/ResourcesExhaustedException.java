package dev.quiver.binding.errors;

/**
 * A query needed more memory than its limit allows and the operator could not spill; or, on a
 * cluster, it could not be admitted: its resource group's queue is full.
 */
public class ResourcesExhaustedException extends QuiverException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the error; the message names the consumer (or group), what it asked for and the limit.
   */
  public ResourcesExhaustedException(String message) {
    super(message);
  }

  /** Creates the error with its cause. */
  public ResourcesExhaustedException(String message, Throwable cause) {
    super(message, cause);
  }
}
