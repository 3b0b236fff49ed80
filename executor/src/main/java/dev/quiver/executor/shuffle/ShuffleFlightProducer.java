package dev.quiver.executor.shuffle;

import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.proto.ShuffleTicket;
import dev.quiver.distributed.shuffle.CompressedBatches;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import dev.quiver.distributed.wire.FlightStreams;
import dev.quiver.distributed.wire.ShuffleTickets;
import java.util.Optional;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arrow Flight service of an executor: {@code DoGet} streams one stored shuffle partition, as plain
 * Arrow bodies or, when compressed, as one compressed IPC message per batch in {@code app_metadata}
 * (see {@link CompressedBatches}).
 */
public final class ShuffleFlightProducer extends NoOpFlightProducer {

  private static final Logger LOG = LoggerFactory.getLogger(ShuffleFlightProducer.class);

  /** How long a stream waits for a slow consumer before giving up. */
  private static final long CONSUMER_WAIT_MILLIS = 120_000;

  private final ShuffleStore store;
  private final BufferAllocator allocator;
  private final String executorId;
  private final ShuffleCompression defaultCompression;

  /** When streams of {@code auto} partitions compress; shared, as they leave by the same link. */
  private final LinkPace linkPace = new LinkPace();

  /** Serves the partitions of {@code store} with the default compression. */
  public ShuffleFlightProducer(ShuffleStore store, BufferAllocator allocator, String executorId) {
    this(store, allocator, executorId, ShuffleCompression.DEFAULT);
  }

  /**
   * Serves the partitions of {@code store}.
   *
   * @param allocator parent of the per-call allocators used to read spilled batches
   * @param executorId named in errors so a consumer knows which executor it asked
   * @param defaultCompression for partitions whose task did not choose one
   */
  public ShuffleFlightProducer(
      ShuffleStore store,
      BufferAllocator allocator,
      String executorId,
      ShuffleCompression defaultCompression) {
    this.store = store;
    this.allocator = allocator;
    this.executorId = executorId;
    this.defaultCompression = defaultCompression;
  }

  private static long bodyBytes(VectorSchemaRoot root) {
    long bytes = 0;
    for (var v : root.getFieldVectors()) {
      bytes += v.getBufferSize();
    }
    return bytes;
  }

  @Override
  public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
    ShufflePartitionId id;
    ShuffleStore.Access access;
    boolean consumerStarved;
    try {
      ShuffleTicket decoded = ShuffleTickets.decode(ticket);
      id = decoded.getPartition();
      consumerStarved = decoded.getConsumerStarved();
      access = store.access(id.getJobId(), decoded.getJobCapability());
    } catch (FlightRuntimeException e) {
      listener.error(e);
      return;
    }
    String name = ShuffleTickets.describe(id);
    if (access == ShuffleStore.Access.DENIED) {
      LOG.warn("refused a DoGet of {}: the ticket does not carry the job's capability", name);
      listener.error(
          CallStatus.UNAUTHORIZED
              .withDescription(
                  "permission denied: executor "
                      + executorId
                      + " serves "
                      + name
                      + " only to tickets carrying the job's capability, which the scheduler"
                      + " gives the job's submitter and its tasks; this ticket does not")
              .toRuntimeException());
      return;
    }
    if (access == ShuffleStore.Access.UNKNOWN) {
      listener.error(missing(id, name));
      return;
    }
    try (BufferAllocator callAllocator =
        allocator.newChildAllocator("doget " + name, 0, Long.MAX_VALUE)) {
      Optional<PartitionReader> opened = store.open(id, callAllocator);
      if (opened.isEmpty()) {
        listener.error(missing(id, name));
        return;
      }
      try (PartitionReader reader = opened.get();
          VectorSchemaRoot root = VectorSchemaRoot.create(reader.schema(), callAllocator)) {
        ShuffleCompression compression = reader.compression().orElse(defaultCompression);
        CompressionCodec codec =
            compression == ShuffleCompression.NONE ? null : compression.newCodec();
        LinkPace.Stream pace =
            compression == ShuffleCompression.AUTO ? linkPace.start(consumerStarved) : null;
        listener.start(root);
        while (reader.loadNext(root)) {
          long waitStart = System.nanoTime();
          BackpressureStrategy.WaitResult ready =
              FlightStreams.awaitReady(listener, CONSUMER_WAIT_MILLIS);
          long waited = System.nanoTime() - waitStart;
          if (ready == BackpressureStrategy.WaitResult.CANCELLED) {
            LOG.debug("consumer of {} went away", name);
            return;
          }
          if (ready != BackpressureStrategy.WaitResult.READY) {
            listener.error(
                CallStatus.TIMED_OUT
                    .withDescription(
                        "consumer of " + name + " read nothing for " + CONSUMER_WAIT_MILLIS + " ms")
                    .toRuntimeException());
            return;
          }
          boolean compress = codec != null && (pace == null || pace.compress());
          if (pace != null) {
            pace.sent(bodyBytes(root), waited);
          }
          if (!compress) {
            listener.putNext();
          } else {
            // Flight takes over the buffer.
            listener.putMetadata(CompressedBatches.encode(root, codec, callAllocator));
          }
        }
        listener.completed();
      }
    } catch (OutOfMemoryException e) {
      listener.error(
          CallStatus.RESOURCE_EXHAUSTED
              .withDescription(
                  "executor "
                      + executorId
                      + " has no memory left to read "
                      + name
                      + " back from disk; give the executor more memory")
              .withCause(e)
              .toRuntimeException());
    } catch (Exception e) {
      LOG.error("streaming {} failed", name, e);
      listener.error(
          CallStatus.INTERNAL
              .withDescription("executor " + executorId + " failed to stream " + name + ": " + e)
              .withCause(e)
              .toRuntimeException());
    }
  }

  private FlightRuntimeException missing(ShufflePartitionId id, String name) {
    if (store.isWriting(id)) {
      return CallStatus.UNAVAILABLE
          .withDescription(
              name
                  + " on executor "
                  + executorId
                  + " is still being written; fetch it after its task has completed")
          .toRuntimeException();
    }
    return CallStatus.NOT_FOUND
        .withDescription(
            "executor "
                + executorId
                + " holds no shuffle output for "
                + name
                + ": its task never ran here, has not completed, or the job's data was removed")
        .toRuntimeException();
  }
}
