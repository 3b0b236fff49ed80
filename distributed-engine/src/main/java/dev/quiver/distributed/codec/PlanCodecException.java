package dev.quiver.distributed.codec;

import dev.quiver.binding.errors.QuiverException;

/** A plan cannot be encoded (a node or expression the codec does not know) or decoded. */
public final class PlanCodecException extends QuiverException {
  /** Creates the exception. */
  public PlanCodecException(String message) {
    super(message);
  }

  /** Creates the exception with its cause. */
  public PlanCodecException(String message, Throwable cause) {
    super(message, cause);
  }
}
