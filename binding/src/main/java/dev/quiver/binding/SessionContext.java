package dev.quiver.binding;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Entry point of the engine: holds registered tables, UDFs, settings and extensions, and turns
 * SQL or DataFrame calls into queries. Not final, so that a decorator can extend it.
 */
public class SessionContext implements AutoCloseable {
  // Skeleton: the front-end task implements every method below.

  /** Creates a session with default settings. */
  public SessionContext() {
    this(new SessionConfig());
  }

  /** Creates a session with the given settings (copied). */
  public SessionContext(SessionConfig config) {
    throw new UnsupportedOperationException("pending: front end");
  }

  /** The session's settings (live; {@code SET} changes them). */
  public SessionConfig config() {
    throw new UnsupportedOperationException("pending");
  }

  /** The session's allocator; collected results are allocated from it. */
  public BufferAllocator allocator() {
    throw new UnsupportedOperationException("pending");
  }

  /** Registers a Parquet file, or a directory of them, as table {@code name}. */
  public void registerParquet(String name, String path) {
    throw new UnsupportedOperationException("pending");
  }

  /** Registers a CSV file (with header row), or a directory of them, as table {@code name}. */
  public void registerCsv(String name, String path) {
    throw new UnsupportedOperationException("pending");
  }

  /** Registers any table provider as table {@code name}. */
  public void registerTable(String name, TableProvider provider) {
    throw new UnsupportedOperationException("pending");
  }

  /** Registers in-memory batches (copied; the caller keeps its own) as table {@code name}. */
  public void registerRecordBatches(String name, Schema schema, List<VectorSchemaRoot> batches) {
    throw new UnsupportedOperationException("pending");
  }

  /** Removes table or view {@code name}; returns whether it existed. */
  public boolean deregisterTable(String name) {
    throw new UnsupportedOperationException("pending");
  }

  /** Names of the registered tables and views. */
  public List<String> tableNames() {
    throw new UnsupportedOperationException("pending");
  }

  /** The provider registered as {@code name}. */
  public TableProvider tableProvider(String name) {
    throw new UnsupportedOperationException("pending");
  }

  /** A DataFrame over table {@code name}. */
  public DataFrame table(String name) {
    throw new UnsupportedOperationException("pending");
  }

  /** Plans a SQL statement; DDL, DML and SET run at once and return their (possibly empty) result. */
  public DataFrame sql(String sql) {
    throw new UnsupportedOperationException("pending");
  }

  /** Registers a scalar UDF. */
  public void registerUdf(ScalarUdf udf) {
    throw new UnsupportedOperationException("pending");
  }

  /** Installs extensions (planner, optimizer rules, UDFs, tables); returns this session. */
  public SessionContext withExtensions(Extension... extensions) {
    throw new UnsupportedOperationException("pending");
  }

  /** The planner queries currently use. */
  public QueryPlanner queryPlanner() {
    throw new UnsupportedOperationException("pending");
  }

  /** Cancels running queries, frees all memory and deregisters everything. */
  @Override
  public void close() {
    throw new UnsupportedOperationException("pending");
  }
}
