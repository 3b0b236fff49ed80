package dev.quiver.binding.physical;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A pull-based stream of record batches. Each batch returned by {@link #next()} is owned by the
 * caller, who must close it. Closing the stream releases everything the stream still holds and
 * stops any background work feeding it.
 */
public interface BatchStream extends AutoCloseable {
  /** Schema of every batch in the stream. */
  Schema schema();

  /** Returns the next batch (owned by the caller; may have zero rows), or null when exhausted. */
  VectorSchemaRoot next();

  /** Releases resources; idempotent. */
  @Override
  void close();
}
