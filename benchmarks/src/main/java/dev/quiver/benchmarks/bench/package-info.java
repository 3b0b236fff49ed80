/**
 * {@code quiver-bench.jar}: the command line that times TPC-H on Quiver against DuckDB and Spark
 * ({@code bench}). It is its own jar so that the {@code quiver} command line carries neither.
 */
package dev.quiver.benchmarks.bench;
