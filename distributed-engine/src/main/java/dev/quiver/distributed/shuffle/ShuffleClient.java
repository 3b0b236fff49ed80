package dev.quiver.distributed.shuffle;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.TaskContext;
import org.apache.arrow.vector.types.pojo.Schema;

/** Fetches one producer task's output partition from the executor that holds it. */
public interface ShuffleClient {
  /**
   * Opens a stream over the partition at {@code location}; batches are allocated from the context's
   * allocator and owned by the caller, as for any {@link BatchStream}.
   *
   * @param schema the schema the producer wrote (the reader checks it matches)
   */
  BatchStream open(ShuffleLocation location, Schema schema, TaskContext context);
}
