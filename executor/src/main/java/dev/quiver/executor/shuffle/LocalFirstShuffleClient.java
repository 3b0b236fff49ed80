package dev.quiver.executor.shuffle;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.distributed.shuffle.ShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleFetchException;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import dev.quiver.distributed.shuffle.ShuffleSchemas;
import java.io.IOException;
import java.util.Optional;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads the partitions this executor holds straight from its own shuffle store, those of other
 * executors in this process from their stores ({@code peers}, when the job's capability opens
 * them), and all others through {@code remote} (Flight). Input written in this process then skips
 * IPC encoding, gRPC and the loopback socket: batches kept in memory are handed over without a
 * copy, spilled ones are read from their files. As over Flight, a partition of this executor that
 * is gone is a {@link ShuffleFetchException}, so the scheduler re-runs its producer; a peer's
 * partition that cannot be opened is left to {@code remote}, which fails or reads it as it would
 * have.
 */
public final class LocalFirstShuffleClient implements ShuffleClient {
  private final String executorId;
  private final ShuffleStore store;
  private final Function<String, ShuffleStore> peers;
  private final ShuffleClient remote;

  /**
   * Reads this executor's own partitions locally and every other partition through {@code remote}.
   */
  public LocalFirstShuffleClient(String executorId, ShuffleStore store, ShuffleClient remote) {
    this(executorId, store, id -> null, remote);
  }

  /**
   * As {@link #LocalFirstShuffleClient(String, ShuffleStore, ShuffleClient)}, and reads the
   * partitions of the executors whose stores {@code peers} returns (null for the others) from those
   * stores.
   */
  public LocalFirstShuffleClient(
      String executorId,
      ShuffleStore store,
      Function<String, ShuffleStore> peers,
      ShuffleClient remote) {
    this.executorId = executorId;
    this.store = store;
    this.peers = peers;
    this.remote = remote;
  }

  @Override
  public BatchStream open(ShuffleLocation location, Schema schema, TaskContext context) {
    if (!executorId.equals(location.executorId())) {
      Optional<PartitionReader> fromPeer = openPeer(location, context);
      if (fromPeer.isEmpty()) {
        return remote.open(location, schema, context);
      }
      return stream(fromPeer.get(), location, schema, context);
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
    return stream(opened.get(), location, schema, context);
  }

  /**
   * The partition from the store of its executor when that runs in this process, shares this task's
   * allocator root, and grants the location's capability (as its DoGet would); else empty.
   */
  private Optional<PartitionReader> openPeer(ShuffleLocation location, TaskContext context) {
    ShuffleStore peer = peers.apply(location.executorId());
    if (peer == null
        || !peer.sharesRootWith(context.allocator())
        || peer.access(location.jobId(), location.capability()) != ShuffleStore.Access.GRANTED) {
      return Optional.empty();
    }
    try {
      return peer.open(location.id(), context.allocator());
    } catch (IllegalStateException e) {
      // The peer closed (its executor stopped): Flight reports that as a fetch failure.
      return Optional.empty();
    }
  }

  private BatchStream stream(
      PartitionReader reader, ShuffleLocation location, Schema schema, TaskContext context) {
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
