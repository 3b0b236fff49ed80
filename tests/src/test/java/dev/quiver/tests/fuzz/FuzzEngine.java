package dev.quiver.tests.fuzz;

import dev.quiver.tests.QueryResult;

/** An engine the fuzzer loads tables into and runs queries on. */
interface FuzzEngine extends AutoCloseable {
  /** The engine's name in reports. */
  String name();

  /** Runs a statement without rows (CREATE TABLE, INSERT, SET). */
  void execute(String sql);

  /** Runs a query and returns every row as plain Java values. */
  QueryResult query(String sql);

  /** Sets the partition count and batch size of the following queries (if the engine has them). */
  default void configure(int partitions, int batchSize) {}

  /** What the engine counted while running (e.g. distributed jobs), or empty. */
  default String stats() {
    return "";
  }

  @Override
  void close();
}
