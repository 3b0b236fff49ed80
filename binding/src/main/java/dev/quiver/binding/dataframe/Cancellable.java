package dev.quiver.binding.dataframe;

import dev.quiver.binding.errors.QueryCancelledException;

/**
 * A running query that another thread may stop: the reader {@link DataFrame#executeStream()}
 * returns is one. After {@link #cancel}, the query's tasks (local or on a cluster) stop and the
 * reader's next read throws {@link QueryCancelledException}; the owner still closes the reader.
 */
public interface Cancellable {
  /** Cancels the query, from any thread; does nothing once it has finished. */
  void cancel(String reason);
}
