package dev.quiver.distributed.security;

import dev.quiver.binding.errors.QuiverException;

/**
 * A server refused a call for who made it: no or a wrong token, a client token where the cluster
 * credential is needed (registering as an executor, launching tasks), or a job another client
 * submitted (watching, cancelling or reading the shuffle output of a job needs the capability its
 * submitter got). The message says which, and never quotes a token or a capability.
 */
public final class AccessDeniedException extends QuiverException {
  private static final long serialVersionUID = 1L;

  /** Creates the error; {@code cause} may be null. */
  public AccessDeniedException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Creates the error. */
  public AccessDeniedException(String message) {
    super(message);
  }
}
