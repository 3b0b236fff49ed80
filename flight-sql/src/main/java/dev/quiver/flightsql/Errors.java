package dev.quiver.flightsql;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.InternalException;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.errors.StatementTooLargeException;
import dev.quiver.binding.errors.UnknownTableException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what a statement threw into the Flight status a client sees: Quiver's typed errors keep
 * their message under a matching code; an internal error (a bug) is INTERNAL with a message naming
 * the exception and where it was thrown. No stack trace ever reaches the client (it is logged).
 */
final class Errors {
  private static final Logger LOG = LoggerFactory.getLogger(Errors.class);

  private Errors() {}

  static FlightRuntimeException toFlight(Throwable e) {
    if (e instanceof FlightRuntimeException f) {
      return f;
    }
    CallStatus status;
    if (e instanceof QueryCancelledException) {
      status = CallStatus.CANCELLED;
    } else if (e instanceof ResourcesExhaustedException
        || e instanceof StatementTooLargeException) {
      status = CallStatus.RESOURCE_EXHAUSTED;
    } else if (e instanceof ObjectStoreException s
        && s.reason() == ObjectStoreException.Reason.NOT_ALLOWED) {
      status = CallStatus.UNAUTHORIZED;
    } else if (e instanceof UnknownTableException) {
      status = CallStatus.NOT_FOUND;
    } else if (e instanceof DataSourceException) {
      status = CallStatus.INVALID_ARGUMENT;
    } else if (e instanceof InternalException) {
      status = CallStatus.INTERNAL;
    } else if (e instanceof QuiverException || e instanceof IllegalArgumentException) {
      status = CallStatus.INVALID_ARGUMENT;
    } else {
      // Thrown outside a query's run (which makes its own InternalException): name it the same.
      InternalException internal = InternalException.of("the statement", null, e);
      LOG.error("{}", internal.getMessage(), e);
      return CallStatus.INTERNAL.withDescription(message(internal)).toRuntimeException();
    }
    return status.withDescription(message(e)).toRuntimeException();
  }

  /**
   * The first line of the error's message (or of its first cause with one), at most 2,000 chars.
   */
  static String message(Throwable e) {
    Throwable t = e;
    while (t.getMessage() == null && t.getCause() != null) {
      t = t.getCause();
    }
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return t.getClass().getSimpleName();
    }
    if (!(t instanceof QuiverException) && !(t instanceof IllegalArgumentException)) {
      m = t.getClass().getSimpleName() + ": " + m;
    }
    return m.length() > 2000 ? m.substring(0, 2000) + "..." : m;
  }
}
