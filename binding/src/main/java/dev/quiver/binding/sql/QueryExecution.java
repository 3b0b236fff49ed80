package dev.quiver.binding.sql;

import dev.quiver.binding.errors.InternalException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryBudget;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.settings.SessionConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running query: its named, limited allocator, memory pool and task context, and the stream of
 * its (single, merged) output partition. Closing it cancels the query if it has not finished,
 * releases everything and checks that the query allocator holds zero bytes.
 */
public final class QueryExecution implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(QueryExecution.class);
  private final SessionState session;
  private final String id;
  private final ExecutionPlan root;
  private final BufferAllocator allocator;
  private final TaskContext context;
  private BatchStream stream;
  private boolean finished;
  private boolean closed;

  QueryExecution(SessionState session, String id, ExecutionPlan plan) {
    this.session = session;
    this.id = id;
    SessionConfig config = session.config().copy();
    this.root = plan.partitionCount() > 1 ? new CoalescePartitionsExec(plan) : plan;
    this.allocator =
        session.allocator().newChildAllocator(session.id() + "-" + id, 0, config.memoryLimit());
    this.context =
        new TaskContext(
            id,
            allocator,
            new MemoryPool(MemoryBudget.spill(config.memoryLimit())),
            config,
            session.executor());
  }

  /** Query identifier. */
  public String id() {
    return id;
  }

  /** The executed plan (with the merge added when the plan had several partitions). */
  public ExecutionPlan root() {
    return root;
  }

  /** Output schema. */
  public Schema schema() {
    return root.schema();
  }

  /** The query's allocator (for tests and diagnostics). */
  public BufferAllocator allocator() {
    return allocator;
  }

  /**
   * Next output batch, owned by the caller and allocated from the query allocator; null at the end.
   */
  public synchronized VectorSchemaRoot next() {
    if (closed) {
      throw new QuiverException("Query " + id + " is closed");
    }
    if (finished) {
      return null;
    }
    try {
      if (stream == null) {
        stream = root.execute(0, context);
      }
      VectorSchemaRoot batch = stream.next();
      if (batch == null) {
        finished = true;
      }
      return batch;
    } catch (RuntimeException | Error e) {
      context.cancel("failed: " + e);
      throw convert(e, id);
    }
  }

  /** Runs the query to the end, moving every batch into {@code target}. */
  public List<VectorSchemaRoot> collect(BufferAllocator target) {
    List<VectorSchemaRoot> out = new ArrayList<>();
    try {
      VectorSchemaRoot batch;
      while ((batch = next()) != null) {
        out.add(transfer(batch, target));
      }
      return out;
    } catch (RuntimeException e) {
      out.forEach(VectorSchemaRoot::close);
      throw e;
    }
  }

  /** Moves a batch's buffers to {@code target} (no copy) and closes the original. */
  static VectorSchemaRoot transfer(VectorSchemaRoot batch, BufferAllocator target) {
    try (batch) {
      List<FieldVector> vectors = new ArrayList<>();
      for (FieldVector v : batch.getFieldVectors()) {
        TransferPair pair = v.getTransferPair(target);
        pair.transfer();
        vectors.add((FieldVector) pair.getTo());
      }
      return new VectorSchemaRoot(batch.getSchema().getFields(), vectors, batch.getRowCount());
    }
  }

  /** Asks running operators to stop. */
  public void cancel(String reason) {
    context.cancel(reason);
  }

  /** Stops the query (if running), frees its memory and checks the allocator is empty. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    session.finished(this);
    if (!finished) {
      context.cancel("closed before the end of its results");
    }
    RuntimeException failure = null;
    try {
      if (stream != null) {
        stream.close();
      }
    } catch (RuntimeException e) {
      failure = convert(e, id);
    }
    try {
      // Stops background producers and runs operators' cleanups before the allocator check.
      context.close();
    } catch (RuntimeException e) {
      if (failure == null) {
        failure = convert(e, id);
      }
    }
    long leaked = allocator.getAllocatedMemory();
    try {
      allocator.close();
    } catch (IllegalStateException e) {
      QuiverException leak =
          new QuiverException(
              "Query "
                  + id
                  + " leaked "
                  + leaked
                  + " bytes of Arrow memory (an operator did not"
                  + " close a batch): "
                  + e.getMessage(),
              e);
      if (failure == null) {
        failure = leak;
      } else {
        failure.addSuppressed(leak);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Maps failures to Quiver's errors: Arrow allocator limits become "resources exhausted", any
   * other untyped exception an {@link InternalException} (logged with its stack trace).
   */
  static RuntimeException convert(Throwable e, String queryId) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryException || t instanceof OutOfMemoryError) {
        return new ResourcesExhaustedException(
            "Resources exhausted: query "
                + queryId
                + " hit its memory limit ("
                + t.getMessage()
                + "); raise quiver.execution.memory_limit or reduce the data the query holds",
            t);
      }
    }
    if (e instanceof QuiverException q) {
      return q;
    }
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (t instanceof QuiverException q) {
        return q;
      }
    }
    // The JVM's own failures propagate; an AssertionError or a deep recursion is a bug like any.
    if (e instanceof VirtualMachineError err && !(e instanceof StackOverflowError)) {
      throw err;
    }
    Throwable cause = e;
    if ((e instanceof ExecutionException || e instanceof CompletionException)
        && e.getCause() != null) {
      cause = e.getCause();
    }
    // Not a typed error: a bug. The user gets its name and place, the log its stack trace.
    InternalException internal = InternalException.of("query " + queryId, queryId, cause);
    LOG.error("{}", internal.getMessage(), cause);
    return internal;
  }
}
