package dev.quiver.scheduler.history;

/** The history database cannot be opened or used; the message names the file and the cause. */
public final class HistoryUnavailableException extends Exception {
  private static final long serialVersionUID = 1L;

  HistoryUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
