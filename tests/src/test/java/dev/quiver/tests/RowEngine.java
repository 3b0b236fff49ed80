package dev.quiver.tests;

/** An engine whose query results the differential tests compare. */
interface RowEngine extends AutoCloseable {
  /** The engine's name in messages. */
  String name();

  /** Runs {@code sql} and returns every row as plain Java values. */
  QueryResult query(String sql);

  /**
   * Runs a statement (DDL, INSERT, UPDATE, DELETE, SET); returns the rows it wrote, or -1 when it
   * reports none.
   */
  long execute(String sql);

  @Override
  void close();
}
