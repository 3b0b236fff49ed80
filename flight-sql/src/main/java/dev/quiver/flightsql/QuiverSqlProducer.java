package dev.quiver.flightsql;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.quiver.binding.dataframe.Cancellable;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.dataframe.Row;
import dev.quiver.binding.format.ArrowValues;
import dev.quiver.binding.sql.StatementSize;
import dev.quiver.distributed.client.JobHandle;
import dev.quiver.distributed.wire.FlightStreams;
import dev.quiver.flightsql.ClientSessions.ClientSession;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCatalogs;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTableTypes;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutPreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutUpdateResult;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arrow Flight SQL over Quiver sessions. Queries are planned when a client asks for their
 * FlightInfo and run when it reads the ticket ({@code DoGet}), streaming batch by batch with the
 * client's backpressure, so the server never holds a whole result. Statements without rows (DDL,
 * INSERT, SET) run when executed and answer with their row count. Cancelling the {@code DoGet}
 * (JDBC's {@code Statement.cancel()}) or {@code CancelFlightInfo} cancels the query, on the cluster
 * too.
 */
final class QuiverSqlProducer implements FlightSqlProducer {
  private static final Logger LOG = LoggerFactory.getLogger(QuiverSqlProducer.class);

  /** How long a stream waits for a client that reads nothing before giving up. */
  private static final long CONSUMER_WAIT_MILLIS = 10 * 60_000;

  private static final Schema NO_COLUMNS = new Schema(List.of());

  private final BufferAllocator allocator;
  private final Metadata metadata;
  private final Map<ByteString, Prepared> prepared = new ConcurrentHashMap<>();
  private final Map<ByteString, Pending> pending = new ConcurrentHashMap<>();
  private final Map<JobHandle, ServedJob> served = new ConcurrentHashMap<>();
  private final boolean executorEndpoints;

  /** The server's bound on SQL text. */
  private final long maxStatementBytes;

  QuiverSqlProducer(
      BufferAllocator allocator,
      String version,
      boolean executorEndpoints,
      long maxStatementBytes) {
    this.allocator = allocator;
    this.metadata = new Metadata(version, maxStatementBytes);
    this.executorEndpoints = executorEndpoints;
    this.maxStatementBytes = maxStatementBytes;
  }

  /**
   * A client's SQL text, checked against the server's {@code quiver.sql.max_statement_bytes} before
   * anything parses it: a client's SET may change its session's value, not the server's.
   */
  private String sqlOf(String text) {
    StatementSize.check(text, maxStatementBytes);
    return text;
  }

  /**
   * A job whose output clients read from the executors: released when its prepared statement
   * closes, its session ends, or it has waited as long as an idle session would.
   */
  private record ServedJob(String sessionId, ByteString prepared, long createdNanos) {}

  /** A statement prepared by a client; its parameter values arrive by {@code DoPut}. */
  private static final class Prepared {
    final ClientSession session;
    final String sql;
    final boolean query;
    final Schema datasetSchema;
    final Schema parameterSchema;
    volatile List<List<Object>> parameterRows = List.of();

    Prepared(
        ClientSession session,
        String sql,
        boolean query,
        Schema datasetSchema,
        Schema parameterSchema) {
      this.session = session;
      this.sql = sql;
      this.query = query;
      this.datasetSchema = datasetSchema;
      this.parameterSchema = parameterSchema;
    }
  }

  /** A planned result waiting for its {@code DoGet}, then streaming. */
  private static final class Pending {
    final ClientSession session;
    final DataFrame frame;
    final long createdNanos = System.nanoTime();
    final AtomicBoolean started = new AtomicBoolean();
    volatile boolean cancelled;
    volatile ArrowReader reader;

    Pending(ClientSession session, DataFrame frame) {
      this.session = session;
      this.frame = frame;
    }

    void cancel(String reason) {
      cancelled = true;
      if (reader instanceof Cancellable c) {
        c.cancel(reason);
      }
    }
  }

  private static ClientSession session(CallContext context) {
    ClientSessions.Call call = context.getMiddleware(ClientSessions.KEY);
    if (call == null) {
      throw CallStatus.INTERNAL.withDescription("session middleware missing").toRuntimeException();
    }
    return call.session();
  }

  private static ByteString newHandle() {
    UUID id = UUID.randomUUID();
    return ByteString.copyFromUtf8(id.toString());
  }

  private static byte[] pack(Message m) {
    return Any.pack(m).toByteArray();
  }

  private static ByteString serialize(Schema schema) {
    return schema.getFields().isEmpty()
        ? ByteString.EMPTY
        : ByteString.copyFrom(schema.serializeAsMessage());
  }

  // ---- statements -----------------------------------------------------------------------------

  /** Runs or plans {@code sql} with {@code parameters} in {@code session}. */
  private static DataFrame frame(ClientSession session, String sql, List<Object> parameters) {
    session.acquire();
    try {
      return parameters.isEmpty() ? session.context.sql(sql) : session.context.sql(sql, parameters);
    } finally {
      session.release();
    }
  }

  /**
   * The FlightInfo of a planned (or already run) statement: one ticket to read it here, or, for a
   * distributed query of a session that asked for it, one endpoint per final task at its executor.
   */
  private FlightInfo flightInfo(
      ClientSession session,
      DataFrame frame,
      FlightDescriptor descriptor,
      boolean query,
      ByteString prepared) {
    Schema schema = ColumnMetadata.annotate(frame.schema());
    if (query && ExecutorEndpoints.wanted(session.context, executorEndpoints)) {
      session.acquire();
      try {
        ExecutorEndpoints.Served s = ExecutorEndpoints.serve(session.context, frame, () -> false);
        if (s != null) {
          served.put(s.job(), new ServedJob(session.id, prepared, System.nanoTime()));
          return new FlightInfo(schema, descriptor, s.endpoints(), -1, -1);
        }
      } finally {
        session.release();
      }
    }
    ByteString id = newHandle();
    pending.put(id, new Pending(session, frame));
    Ticket ticket =
        new Ticket(pack(TicketStatementQuery.newBuilder().setStatementHandle(id).build()));
    return new FlightInfo(schema, descriptor, List.of(new FlightEndpoint(ticket)), -1, -1);
  }

  @Override
  public FlightInfo getFlightInfoStatement(
      CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    try {
      ClientSession session = session(context);
      String sql = sqlOf(command.getQuery());
      return flightInfo(
          session, frame(session, sql, List.of()), descriptor, session.context.isQuery(sql), null);
    } catch (RuntimeException e) {
      throw Errors.toFlight(e);
    }
  }

  @Override
  public SchemaResult getSchemaStatement(
      CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    try {
      ClientSession session = session(context);
      String sql = sqlOf(command.getQuery());
      return new SchemaResult(
          session.context.isQuery(sql)
              ? ColumnMetadata.annotate(session.context.sql(sql).schema())
              : NO_COLUMNS);
    } catch (RuntimeException e) {
      throw Errors.toFlight(e);
    }
  }

  @Override
  public void getStreamStatement(
      TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    ByteString id = ticket.getStatementHandle();
    Pending p = pending.get(id);
    if (p == null || !p.started.compareAndSet(false, true)) {
      listener.error(
          CallStatus.NOT_FOUND
              .withDescription(
                  "No result waits for this ticket: it was already read, cancelled, or its"
                      + " session expired; execute the statement again")
              .toRuntimeException());
      return;
    }
    // gRPC runs the call's cancel callbacks (the listener's onCancel handler, isCancelled) on the
    // call's serializing executor, which this handler occupies until the result is streamed: a
    // client's cancel would reach us only once the job is done. The call's Context is cancelled at
    // once, from another thread, so the running job is cancelled from there.
    io.grpc.Context call = io.grpc.Context.current();
    io.grpc.Context.CancellationListener onCancel =
        c -> p.cancel("the client cancelled the stream");
    call.addListener(onCancel, Runnable::run);
    try {
      stream(p, listener);
    } finally {
      call.removeListener(onCancel);
      pending.remove(id);
    }
  }

  private static void stream(Pending p, ServerStreamListener listener) {
    p.session.acquire();
    listener.setOnCancelHandler(() -> p.cancel("the client cancelled the stream"));
    try (ArrowReader reader = p.frame.executeStream()) {
      p.reader = reader;
      if (p.cancelled) {
        listener.error(CallStatus.CANCELLED.withDescription("cancelled").toRuntimeException());
        return;
      }
      VectorSchemaRoot batches = reader.getVectorSchemaRoot();
      // The same vectors under the annotated schema, which the client sees.
      VectorSchemaRoot root =
          new VectorSchemaRoot(
              ColumnMetadata.annotate(batches.getSchema()).getFields(),
              batches.getFieldVectors(),
              0);
      listener.start(root);
      while (reader.loadNextBatch()) {
        root.setRowCount(batches.getRowCount());
        BackpressureStrategy.WaitResult ready =
            FlightStreams.awaitReady(listener, CONSUMER_WAIT_MILLIS);
        if (ready == BackpressureStrategy.WaitResult.CANCELLED) {
          return; // closing the reader cancels the query
        }
        if (ready != BackpressureStrategy.WaitResult.READY) {
          listener.error(
              CallStatus.TIMED_OUT
                  .withDescription(
                      "the client read nothing for " + CONSUMER_WAIT_MILLIS / 1000 + " s")
                  .toRuntimeException());
          return;
        }
        listener.putNext();
      }
      listener.completed();
    } catch (Exception e) {
      if (listener.isCancelled()) {
        LOG.debug("stream cancelled by its client: {}", e.getMessage());
      } else {
        listener.error(Errors.toFlight(e));
      }
    } finally {
      p.session.release();
    }
  }

  @Override
  public Runnable acceptPutStatement(
      CommandStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        ClientSession session = session(context);
        long count = updateCount(frame(session, sqlOf(command.getQuery()), List.of()));
        ack(ackStream, DoPutUpdateResult.newBuilder().setRecordCount(count).build());
      } catch (RuntimeException e) {
        ackStream.onError(Errors.toFlight(e));
      }
    };
  }

  /** The row count a statement without rows reports: its {@code count} column, else 0. */
  private static long updateCount(DataFrame frame) {
    Schema schema = frame.schema();
    if (schema.getFields().size() != 1 || !schema.getFields().get(0).getName().equals("count")) {
      return schema.getFields().isEmpty() ? 0 : -1;
    }
    long total = 0;
    for (Row r : frame.rows()) {
      if (r.get(0) instanceof Number n) {
        total += n.longValue();
      }
    }
    return total;
  }

  private void ack(StreamListener<PutResult> ackStream, Message result) {
    byte[] bytes = result.toByteArray();
    try (ArrowBuf buf = allocator.buffer(bytes.length)) {
      buf.writeBytes(bytes);
      ackStream.onNext(PutResult.metadata(buf));
    }
    ackStream.onCompleted();
  }

  // ---- prepared statements --------------------------------------------------------------------

  @Override
  public void createPreparedStatement(
      ActionCreatePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    try {
      ClientSession session = session(context);
      String sql = sqlOf(request.getQuery());
      session.acquire();
      Prepared p;
      try {
        boolean query = session.context.isQuery(sql);
        Schema parameters = session.context.parameterSchema(sql);
        Schema dataset = NO_COLUMNS;
        if (query) {
          List<Object> nulls = Collections.nCopies(parameters.getFields().size(), null);
          dataset =
              nulls.isEmpty()
                  ? session.context.sql(sql).schema()
                  : session.context.sql(sql, nulls).schema();
        }
        p = new Prepared(session, sql, query, ColumnMetadata.annotate(dataset), parameters);
      } finally {
        session.release();
      }
      ByteString handle = newHandle();
      prepared.put(handle, p);
      ActionCreatePreparedStatementResult result =
          ActionCreatePreparedStatementResult.newBuilder()
              .setPreparedStatementHandle(handle)
              .setDatasetSchema(serialize(p.datasetSchema))
              .setParameterSchema(serialize(p.parameterSchema))
              .build();
      listener.onNext(new Result(pack(result)));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(Errors.toFlight(e));
    }
  }

  private Prepared prepared(ByteString handle) {
    Prepared p = prepared.get(handle);
    if (p == null) {
      throw CallStatus.NOT_FOUND
          .withDescription(
              "Unknown prepared statement: it was closed or its session expired; prepare it again")
          .toRuntimeException();
    }
    return p;
  }

  @Override
  public void closePreparedStatement(
      ActionClosePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    ByteString handle = request.getPreparedStatementHandle();
    prepared.remove(handle);
    release(e -> handle.equals(e.getValue().prepared()));
    listener.onCompleted();
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    try {
      Prepared p = prepared(command.getPreparedStatementHandle());
      List<List<Object>> rows = p.parameterRows;
      List<Object> parameters = rows.isEmpty() ? List.of() : rows.get(0);
      checkParameters(p, parameters);
      return flightInfo(
          p.session,
          frame(p.session, p.sql, parameters),
          descriptor,
          p.query,
          command.getPreparedStatementHandle());
    } catch (RuntimeException e) {
      throw Errors.toFlight(e);
    }
  }

  private static void checkParameters(Prepared p, List<Object> values) {
    int wanted = p.parameterSchema.getFields().size();
    if (values.size() != wanted) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "The statement has " + wanted + " parameters but " + values.size() + " were bound")
          .toRuntimeException();
    }
  }

  @Override
  public SchemaResult getSchemaPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return new SchemaResult(prepared(command.getPreparedStatementHandle()).datasetSchema);
  }

  @Override
  public void getStreamPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, ServerStreamListener listener) {
    listener.error(
        CallStatus.INVALID_ARGUMENT
            .withDescription(
                "Read a prepared statement's result through the ticket of its FlightInfo")
            .toRuntimeException());
  }

  @Override
  public Runnable acceptPutPreparedStatementQuery(
      CommandPreparedStatementQuery command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        Prepared p = prepared(command.getPreparedStatementHandle());
        p.parameterRows = parameterRows(flightStream);
        ack(
            ackStream,
            DoPutPreparedStatementResult.newBuilder()
                .setPreparedStatementHandle(command.getPreparedStatementHandle())
                .build());
      } catch (RuntimeException e) {
        ackStream.onError(Errors.toFlight(e));
      }
    };
  }

  @Override
  public Runnable acceptPutPreparedStatementUpdate(
      CommandPreparedStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        Prepared p = prepared(command.getPreparedStatementHandle());
        List<List<Object>> rows = parameterRows(flightStream);
        if (rows.isEmpty()) {
          rows = List.of(List.of());
        }
        long total = 0;
        for (List<Object> row : rows) {
          checkParameters(p, row);
          long count = updateCount(frame(p.session, p.sql, row));
          total += Math.max(0, count);
        }
        ack(ackStream, DoPutUpdateResult.newBuilder().setRecordCount(total).build());
      } catch (RuntimeException e) {
        ackStream.onError(Errors.toFlight(e));
      }
    };
  }

  /** The rows of parameter values a client sent. */
  private static List<List<Object>> parameterRows(FlightStream stream) {
    List<List<Object>> rows = new ArrayList<>();
    while (stream.next()) {
      VectorSchemaRoot root = stream.getRoot();
      for (int r = 0; r < root.getRowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (FieldVector v : root.getFieldVectors()) {
          row.add(ArrowValues.get(v, r));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  // ---- cancellation and sessions --------------------------------------------------------------

  @Override
  public void cancelFlightInfo(
      CancelFlightInfoRequest request, CallContext context, StreamListener<CancelStatus> listener) {
    CancelStatus status = CancelStatus.NOT_CANCELLABLE;
    for (FlightEndpoint e : request.getInfo().getEndpoints()) {
      ByteString id = statementHandle(e.getTicket());
      Pending p = id == null ? null : pending.get(id);
      if (p != null) {
        p.cancel("cancelled by the client (CancelFlightInfo)");
        pending.remove(id);
        status = CancelStatus.CANCELLED;
      }
    }
    listener.onNext(status);
    listener.onCompleted();
  }

  private static ByteString statementHandle(Ticket ticket) {
    try {
      Any any = Any.parseFrom(ticket.getBytes());
      return any.is(TicketStatementQuery.class)
          ? any.unpack(TicketStatementQuery.class).getStatementHandle()
          : null;
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
  }

  @Override
  public void closeSession(
      CloseSessionRequest request,
      CallContext context,
      StreamListener<CloseSessionResult> listener) {
    ClientSessions.Call call = context.getMiddleware(ClientSessions.KEY);
    String id = call == null ? null : call.close();
    boolean closed = id != null;
    if (closed) {
      prepared.values().removeIf(p -> p.session.id.equals(id));
      release(e -> e.getValue().sessionId().equals(id));
    }
    listener.onNext(
        new CloseSessionResult(
            closed ? CloseSessionResult.Status.CLOSED : CloseSessionResult.Status.NOT_CLOSABLE));
    listener.onCompleted();
  }

  /** Releases the served jobs that {@code which} selects. */
  private void release(java.util.function.Predicate<Map.Entry<JobHandle, ServedJob>> which) {
    for (Map.Entry<JobHandle, ServedJob> e : List.copyOf(served.entrySet())) {
      if (which.test(e) && served.remove(e.getKey()) != null) {
        e.getKey().close();
      }
    }
  }

  /** Forgets prepared statements and unread results of sessions that are gone or idle. */
  void forgetSessions(java.util.Set<String> openSessions, long unreadNanos) {
    prepared.values().removeIf(p -> !openSessions.contains(p.session.id));
    long now = System.nanoTime();
    release(
        e ->
            !openSessions.contains(e.getValue().sessionId())
                || now - e.getValue().createdNanos() > unreadNanos);
    pending
        .values()
        .removeIf(
            p ->
                !p.started.get()
                    && (!openSessions.contains(p.session.id)
                        || now - p.createdNanos > unreadNanos));
  }

  // ---- metadata -------------------------------------------------------------------------------

  private static FlightInfo metadataInfo(Message command, Schema schema, FlightDescriptor d) {
    return new FlightInfo(
        schema, d, List.of(new FlightEndpoint(new Ticket(pack(command)))), -1, -1);
  }

  private void sendRoot(Schema schema, ServerStreamListener listener, RootWriter writer) {
    try (VectorSchemaRoot root = Metadata.root(schema, allocator)) {
      writer.write(root);
      listener.start(root);
      listener.putNext();
      listener.completed();
    } catch (RuntimeException e) {
      listener.error(Errors.toFlight(e));
    }
  }

  @FunctionalInterface
  private interface RootWriter {
    void write(VectorSchemaRoot root);
  }

  private void sendEmpty(Schema schema, ServerStreamListener listener) {
    sendRoot(schema, listener, root -> root.setRowCount(0));
  }

  @Override
  public FlightInfo getFlightInfoSqlInfo(
      CommandGetSqlInfo request, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(request, Schemas.GET_SQL_INFO_SCHEMA, descriptor);
  }

  @Override
  public void getStreamSqlInfo(
      CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
    metadata.sqlInfo(command.getInfoList(), listener);
  }

  @Override
  public FlightInfo getFlightInfoTypeInfo(
      CommandGetXdbcTypeInfo request, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(request, Schemas.GET_TYPE_INFO_SCHEMA, descriptor);
  }

  @Override
  public void getStreamTypeInfo(
      CommandGetXdbcTypeInfo request, CallContext context, ServerStreamListener listener) {
    sendRoot(Schemas.GET_TYPE_INFO_SCHEMA, listener, root -> Metadata.typeInfo(request, root));
  }

  @Override
  public FlightInfo getFlightInfoCatalogs(
      CommandGetCatalogs request, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(request, Schemas.GET_CATALOGS_SCHEMA, descriptor);
  }

  @Override
  public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
    ClientSession session;
    try {
      session = session(context);
    } catch (RuntimeException e) {
      listener.error(Errors.toFlight(e));
      return;
    }
    sendRoot(
        Schemas.GET_CATALOGS_SCHEMA, listener, root -> Metadata.catalogs(session.context, root));
  }

  @Override
  public FlightInfo getFlightInfoSchemas(
      CommandGetDbSchemas request, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(request, Schemas.GET_SCHEMAS_SCHEMA, descriptor);
  }

  @Override
  public void getStreamSchemas(
      CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
    ClientSession session;
    try {
      session = session(context);
    } catch (RuntimeException e) {
      listener.error(Errors.toFlight(e));
      return;
    }
    sendRoot(
        Schemas.GET_SCHEMAS_SCHEMA,
        listener,
        root -> Metadata.schemas(session.context, command, root));
  }

  @Override
  public FlightInfo getFlightInfoTables(
      CommandGetTables request, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(request, Metadata.tablesSchema(request.getIncludeSchema()), descriptor);
  }

  @Override
  public void getStreamTables(
      CommandGetTables command, CallContext context, ServerStreamListener listener) {
    ClientSession session;
    try {
      session = session(context);
    } catch (RuntimeException e) {
      listener.error(Errors.toFlight(e));
      return;
    }
    sendRoot(
        Metadata.tablesSchema(command.getIncludeSchema()),
        listener,
        root -> Metadata.tables(session.context, command, root));
  }

  @Override
  public FlightInfo getFlightInfoTableTypes(
      CommandGetTableTypes request, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(request, Schemas.GET_TABLE_TYPES_SCHEMA, descriptor);
  }

  @Override
  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    sendRoot(Schemas.GET_TABLE_TYPES_SCHEMA, listener, Metadata::tableTypes);
  }

  @Override
  public FlightInfo getFlightInfoPrimaryKeys(
      CommandGetPrimaryKeys request, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(request, Schemas.GET_PRIMARY_KEYS_SCHEMA, descriptor);
  }

  @Override
  public void getStreamPrimaryKeys(
      CommandGetPrimaryKeys command, CallContext context, ServerStreamListener listener) {
    sendEmpty(Schemas.GET_PRIMARY_KEYS_SCHEMA, listener);
  }

  @Override
  public FlightInfo getFlightInfoExportedKeys(
      CommandGetExportedKeys request, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(request, Schemas.GET_EXPORTED_KEYS_SCHEMA, descriptor);
  }

  @Override
  public FlightInfo getFlightInfoImportedKeys(
      CommandGetImportedKeys request, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(request, Schemas.GET_IMPORTED_KEYS_SCHEMA, descriptor);
  }

  @Override
  public FlightInfo getFlightInfoCrossReference(
      CommandGetCrossReference request, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(request, Schemas.GET_CROSS_REFERENCE_SCHEMA, descriptor);
  }

  @Override
  public void getStreamExportedKeys(
      CommandGetExportedKeys command, CallContext context, ServerStreamListener listener) {
    sendEmpty(Schemas.GET_EXPORTED_KEYS_SCHEMA, listener);
  }

  @Override
  public void getStreamImportedKeys(
      CommandGetImportedKeys command, CallContext context, ServerStreamListener listener) {
    sendEmpty(Schemas.GET_IMPORTED_KEYS_SCHEMA, listener);
  }

  @Override
  public void getStreamCrossReference(
      CommandGetCrossReference command, CallContext context, ServerStreamListener listener) {
    sendEmpty(Schemas.GET_CROSS_REFERENCE_SCHEMA, listener);
  }

  @Override
  public void listFlights(
      CallContext context, Criteria criteria, StreamListener<FlightInfo> listener) {
    listener.onCompleted();
  }

  @Override
  public void close() {
    for (Pending p : List.copyOf(pending.values())) {
      p.cancel("the server is stopping");
    }
    pending.clear();
    prepared.clear();
    release(e -> true);
  }
}
