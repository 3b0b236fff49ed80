/**
 * The engines {@code bench} compares, by name: Quiver in process and on an embedded cluster (from
 * {@code examples}), DuckDB over JDBC and, with the {@code spark} Maven profile, Spark SQL.
 */
package dev.quiver.benchmarks.engine;
