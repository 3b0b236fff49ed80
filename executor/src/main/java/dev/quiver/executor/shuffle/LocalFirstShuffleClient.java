package dev.quiver.executor.shuffle;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.distributed.shuffle.ShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleFetchException;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import dev.quiver.distributed.shuffle.ShuffleSchemas;
import java.io.IOException;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads the partitions this executor holds straight from its own shuffle store and all others
 * through {@code remote} (Flight). Input written by a task of the same executor then skips IPC
 * encoding, gRPC and the loopback socket: batches kept in memory are handed over without a copy,
 * spilled ones are read from their files. As over Flight, a partition that is gone is a {@link
 * ShuffleFetchException}, so the scheduler re-runs its producer.
 */
public final class LocalFirstShuffleClient implements ShuffleClient {
  private final String executorId;
  private final ShuffleStore store;
  private final ShuffleClient remote;

  public LocalFirstShuffleClient(String executorId, ShuffleStore store, ShuffleClient remote) {
    this.executorId = executorId;
    this.store = store;
    this.remote = remote;
  }

  @Override
  public BatchStream open(ShuffleLocation location, Schema schema, TaskContext context) {
    if (!executorId.equals(location.executorId())) {
      return remote.open(location, schema, context);
    }
    Optional<PartitionReader> opened = store.open(location.id(), context.allocator());
    if (opened.isEmpty()) {
      throw new ShuffleFetchException(
          location,
          store.isWriting(location.id())
              ? "it is still being written on this executor"
              : "this executor no longer holds it",
          null);
    }
    PartitionReader reader = opened.get();
    if (!ShuffleSchemas.sameColumnTypes(reader.schema(), schema)) {
      close(reader, location);
      throw new ShuffleFetchException(
          location,
          "producer wrote schema " + reader.schema() + " but the reader expects " + schema,
          null);
    }
    return new LocalStream(location, schema, reader, context.allocator());
  }

  private static void close(PartitionReader reader, ShuffleLocation location) {
    try {
      reader.close();
    } catch (IOException e) {
      throw new ShuffleFetchException(location, "closing its reader failed: " + e, e);
    }
  }

  private static final class LocalStream implements BatchStream {
    private final ShuffleLocation location;
    private final Schema schema;
    private final PartitionReader reader;
    private final BufferAllocator allocator;
    private boolean closed;

    LocalStream(
        ShuffleLocation location,
        Schema schema,
        PartitionReader reader,
        BufferAllocator allocator) {
      this.location = location;
      this.schema = schema;
      this.reader = reader;
      this.allocator = allocator;
    }

    @Override
    public Schema schema() {
      return schema;
    }

    @Override
    public VectorSchemaRoot next() {
      if (closed) {
        return null;
      }
      VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
      try {
        if (reader.loadNext(root)) {
          return root;
        }
        root.close();
        return null;
      } catch (IOException | RuntimeException e) {
        root.close();
        throw new ShuffleFetchException(location, "reading it from this executor failed: " + e, e);
      }
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        LocalFirstShuffleClient.close(reader, location);
      }
    }
  }
}
