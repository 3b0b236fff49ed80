package dev.quiver.binding.errors;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A bug in Quiver (or in an extension it runs) rather than in the query: an exception no typed
 * error covers, such as an {@code UnsupportedOperationException} thrown deep in an operator. Its
 * message names the query, the exception and where it was thrown, so that a user never sees a bare
 * class name; whoever creates one logs the full stack trace.
 */
public class InternalException extends QuiverException {
  private static final long serialVersionUID = 1L;

  /** How many stack frames the message shows. */
  private static final int FRAMES = 3;

  private final String queryId;

  /** Rebuilds the error from its message (as a remote failure is), without a query id. */
  public InternalException(String message) {
    this(message, null, null);
  }

  /** Creates the error with its full message, the query it failed (or null) and the cause. */
  public InternalException(String message, String queryId, Throwable cause) {
    super(message, cause);
    this.queryId = queryId;
  }

  /**
   * The error for {@code cause} failing {@code what} (such as "query query-1" or "task
   * job-1/2/0#0") of query {@code queryId} (null when unknown).
   */
  public static InternalException of(String what, String queryId, Throwable cause) {
    return new InternalException(
        "Internal error in "
            + what
            + ": "
            + describe(cause)
            + "; this is a bug in Quiver, please report it with the query (the stack trace is in"
            + " the log)",
        queryId,
        cause);
  }

  /** The query this error failed, or null when it is not known here. */
  public String queryId() {
    return queryId;
  }

  /**
   * One line naming {@code e}: its simple class name, its message if any, and its top stack frames
   * ({@code UnsupportedOperationException at NullVector.copyFromSafe <- Take.takeGeneric}).
   */
  public static String describe(Throwable e) {
    Throwable t = e;
    while ((t instanceof ExecutionException || t instanceof CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    StringBuilder out = new StringBuilder(t.getClass().getSimpleName());
    String message = t.getMessage();
    if (message != null && !message.isBlank()) {
      out.append(": ").append(message.strip().lines().findFirst().orElse(""));
    }
    StackTraceElement[] frames = t.getStackTrace();
    for (int i = 0; i < Math.min(FRAMES, frames.length); i++) {
      String cls = frames[i].getClassName();
      out.append(i == 0 ? " at " : " <- ")
          .append(cls.substring(cls.lastIndexOf('.') + 1))
          .append('.')
          .append(frames[i].getMethodName());
    }
    return out.toString();
  }
}
