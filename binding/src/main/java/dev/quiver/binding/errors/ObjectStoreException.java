package dev.quiver.binding.errors;

/**
 * A file or object could not be listed, read or written in its store (a local folder or an S3
 * bucket): the message names the URI and the reason, never a credential.
 */
public class ObjectStoreException extends DataSourceException {
  private static final long serialVersionUID = 1L;

  /** Why the store refused. */
  public enum Reason {
    /** The bucket, key, file or folder does not exist. */
    NOT_FOUND,
    /** The credentials are missing, wrong, or not allowed to do this. */
    ACCESS_DENIED,
    /**
     * A local path outside the allowed paths of the server or executor that would read or write it
     * (its {@code --allowed-paths}).
     */
    NOT_ALLOWED,
    /** The store's endpoint cannot be reached. */
    UNREACHABLE,
    /** The object is shorter than expected or otherwise not what was asked for. */
    INVALID,
    /** Any other failure (after retries). */
    OTHER
  }

  private final Reason reason;

  /** Creates the error; the message names the URI and what to do. */
  public ObjectStoreException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** Creates the error with its cause. */
  public ObjectStoreException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  /** Why the store refused. */
  public Reason reason() {
    return reason;
  }
}
