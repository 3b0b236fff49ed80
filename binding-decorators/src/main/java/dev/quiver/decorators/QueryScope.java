package dev.quiver.decorators;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a distributed frame tells the planner about the query it is about to run: its text (the
 * scheduler shows it as the job's name), whom it runs for and where the progress of the query's
 * jobs goes.
 *
 * <p>Planning runs on the thread that calls {@code collect}, {@code executeStream}, {@code count},
 * {@code show}, {@code explain(true)} or a write; the frame opens the scope on that thread for the
 * length of the call, and the distributed planner picks it up while it plans.
 */
public final class QueryScope {
  private static final ThreadLocal<QueryScope> CURRENT = new ThreadLocal<>();

  private final String text;
  private final String user;
  private final ProgressSink sink;

  /** Receives the progress of the jobs a query runs; called from the query's threads. */
  @FunctionalInterface
  public interface ProgressSink {
    /** The latest progress of one of the query's jobs. */
    void update(JobProgress progress);
  }

  /** A scope for a query described by {@code text} reporting to {@code sink}. */
  public QueryScope(String text, ProgressSink sink) {
    this(text, "", sink);
  }

  /**
   * As above, run for {@code user} (a server's client; "" for this process's own user), whom the
   * query's jobs name.
   */
  public QueryScope(String text, String user, ProgressSink sink) {
    this.text = text;
    this.user = user == null ? "" : user;
    this.sink = sink;
  }

  /** The user the query runs for, or "" for this process's own. */
  public String user() {
    return user;
  }

  /** The query's text: its SQL, or a rendering of its logical plan. */
  public String text() {
    return text;
  }

  /** Where the query's job progress goes. */
  public ProgressSink sink() {
    return sink;
  }

  /** The scope opened on this thread, if a distributed frame is running a query on it. */
  public static Optional<QueryScope> current() {
    return Optional.ofNullable(CURRENT.get());
  }

  /** Runs {@code action} with this scope open on the calling thread. */
  public <T> T run(Supplier<T> action) {
    QueryScope outer = CURRENT.get();
    CURRENT.set(this);
    try {
      return action.get();
    } finally {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }
}
