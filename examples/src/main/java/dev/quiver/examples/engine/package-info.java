/**
 * Quiver behind one small interface (register Parquet tables, run a query to completion), in
 * process or on an embedded cluster: what {@code quiver tpch} runs, and the Quiver side of the
 * benchmark harness, whose other engines (DuckDB, Spark) live in the {@code benchmarks} module.
 */
package dev.quiver.examples.engine;
