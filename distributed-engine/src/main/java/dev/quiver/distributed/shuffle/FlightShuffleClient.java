package dev.quiver.distributed.shuffle;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.distributed.security.AccessDeniedException;
import dev.quiver.distributed.security.FlightSecurity;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.security.TlsDiagnosis;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.wire.ShuffleTickets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Fetches shuffle partitions with Arrow Flight {@code DoGet}, keeping one client per executor
 * address. Plain batches are moved (not copied) into the reading task's allocator; compressed ones
 * ({@link ShuffleCompression}) are decompressed into it.
 */
public final class FlightShuffleClient implements ShuffleClient, AutoCloseable {
  private final BufferAllocator allocator;
  private final Connector connector;
  private final Map<String, FlightClient> clients = new ConcurrentHashMap<>();
  private final boolean clientTls;

  /** Builds the Flight client of one executor address. */
  @FunctionalInterface
  public interface Connector {
    /** A client to {@code host:port} whose streams allocate from {@code allocator}. */
    FlightClient connect(BufferAllocator allocator, String host, int port);
  }

  /**
   * Creates a client whose Flight streams allocate from a child of {@code parent}.
   *
   * @param connector builds a Flight client for an address (with the cluster's TLS and token)
   */
  public FlightShuffleClient(BufferAllocator parent, Connector connector) {
    this(parent, connector, false);
  }

  private FlightShuffleClient(BufferAllocator parent, Connector connector, boolean clientTls) {
    this.allocator = parent.newChildAllocator("flight-shuffle-client", 0, Long.MAX_VALUE);
    this.connector = connector;
    this.clientTls = clientTls;
  }

  /** A client using {@code security}'s TLS and token on every connection. */
  public static FlightShuffleClient create(BufferAllocator parent, SecurityConfig security) {
    return new FlightShuffleClient(
        parent,
        (alloc, host, port) -> FlightSecurity.connect(alloc, host, port, security),
        security.clientTls());
  }

  /**
   * A client connecting over {@code transport} (an in-process one in tests), with {@code
   * security}'s TLS and token as {@link #create(BufferAllocator, SecurityConfig)} has them on
   * Netty.
   */
  public static FlightShuffleClient create(
      BufferAllocator parent, SecurityConfig security, GrpcTransport transport) {
    if (transport == GrpcTransport.NETTY) {
      return create(parent, security);
    }
    return new FlightShuffleClient(
        parent,
        (alloc, host, port) ->
            FlightGrpcUtils.createFlightClient(
                alloc,
                transport
                    .channelBuilder(host, port, security)
                    .maxInboundMessageSize(Integer.MAX_VALUE)
                    .build()),
        security.clientTls());
  }

  /** A client over plaintext gRPC without a token. */
  public static FlightShuffleClient insecure(BufferAllocator parent) {
    return create(parent, SecurityConfig.none());
  }

  /** Whether this process's reads are starved of data, told to producers in the tickets. */
  private final ConsumerPace pace = new ConsumerPace();

  @Override
  public BatchStream open(ShuffleLocation location, Schema schema, TaskContext context) {
    FlightClient client =
        clients.computeIfAbsent(
            location.host() + ":" + location.port(),
            k -> connector.connect(allocator, location.host(), location.port()));
    FlightStream stream;
    try {
      stream =
          client.getStream(
              pace.starved() ? ShuffleTickets.starved(location.ticket()) : location.ticket());
    } catch (FlightRuntimeException e) {
      throw fetchFailed(location, e, clientTls);
    }
    // A task cancelled while it waits for a batch (its producer's executor hangs, or the
    // scheduler re-runs the producer) ends the call instead of waiting for the keepalive.
    AutoCloseable onCancel =
        context.onCancel(() -> stream.cancel("the reading task was cancelled", null));
    return new FlightBatchStream(
        location, schema, stream, context.allocator(), clientTls, onCancel, pace.start());
  }

  @Override
  public void close() {
    List<Exception> errors = new ArrayList<>();
    for (FlightClient c : clients.values()) {
      try {
        c.close();
      } catch (Exception e) {
        errors.add(e);
      }
    }
    clients.clear();
    allocator.close();
    if (!errors.isEmpty()) {
      throw new IllegalStateException("closing Flight clients failed", errors.get(0));
    }
  }

  private static QuiverException fetchFailed(
      ShuffleLocation location, FlightRuntimeException e, boolean clientTls) {
    FlightStatusCode code = e.status().code();
    if (code == FlightStatusCode.UNAUTHORIZED || code == FlightStatusCode.UNAUTHENTICATED) {
      // Refused for who is asking: reading it again (or re-running its producer) cannot help.
      return new AccessDeniedException(
          "Could not read " + location + ": " + code + ": " + e.getMessage(), e);
    }
    return new ShuffleFetchException(
        location,
        e.status().code() + ": " + e.getMessage() + TlsDiagnosis.explain(e, clientTls),
        e);
  }

  private static final class FlightBatchStream implements BatchStream {
    private final ShuffleLocation location;
    private final Schema schema;
    private final FlightStream stream;
    private final BufferAllocator target;
    private final boolean clientTls;
    private final AutoCloseable onCancel;
    private final ConsumerPace.Stream pace;
    private boolean checked;
    private boolean closed;

    FlightBatchStream(
        ShuffleLocation location,
        Schema schema,
        FlightStream stream,
        BufferAllocator target,
        boolean clientTls,
        AutoCloseable onCancel,
        ConsumerPace.Stream pace) {
      this.location = location;
      this.pace = pace;
      this.schema = schema;
      this.stream = stream;
      this.target = target;
      this.clientTls = clientTls;
      this.onCancel = onCancel;
    }

    @Override
    public Schema schema() {
      return schema;
    }

    @Override
    public VectorSchemaRoot next() {
      try {
        long waitStart = System.nanoTime();
        if (closed || !stream.next()) {
          return null;
        }
        long waited = System.nanoTime() - waitStart;
        VectorSchemaRoot root = stream.getRoot();
        if (!checked) {
          checkSchema(root.getSchema());
          checked = true;
        }
        ArrowBuf compressed = stream.getLatestMetadata();
        if (compressed != null && root.getRowCount() == 0) {
          // A compressed producer sends each batch as an IPC message in app_metadata.
          pace.received(compressed.readableBytes(), waited);
          return decode(compressed);
        }
        long bytes = 0;
        for (FieldVector v : root.getFieldVectors()) {
          bytes += v.getBufferSize();
        }
        pace.received(bytes, waited);
        List<FieldVector> vectors = new ArrayList<>(root.getFieldVectors().size());
        for (FieldVector v : root.getFieldVectors()) {
          TransferPair pair = v.getTransferPair(target);
          pair.transfer();
          vectors.add((FieldVector) pair.getTo());
        }
        List<Field> fields = schema.getFields();
        return new VectorSchemaRoot(fields, vectors, root.getRowCount());
      } catch (FlightRuntimeException e) {
        throw fetchFailed(location, e, clientTls);
      }
    }

    private VectorSchemaRoot decode(ArrowBuf message) {
      try {
        return CompressedBatches.decode(message, schema, target);
      } catch (IllegalArgumentException e) {
        throw new ShuffleFetchException(location, e.getMessage(), e);
      }
    }

    private void checkSchema(Schema actual) {
      if (!ShuffleSchemas.sameColumnTypes(actual, schema)) {
        throw new ShuffleFetchException(
            location,
            "producer wrote schema " + actual + " but the reader expects " + schema,
            null);
      }
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        onCancel.close();
        stream.close();
      } catch (Exception e) {
        // The consumer stopped early; the server notices the cancelled call. Nothing to recover.
      }
    }
  }
}
