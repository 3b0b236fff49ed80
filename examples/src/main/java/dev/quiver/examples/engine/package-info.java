/**
 * The engines {@code quiver bench} compares behind one interface: Quiver in process, Quiver on an
 * embedded cluster, DuckDB over JDBC and (with the spark profile) Spark SQL.
 */
package dev.quiver.examples.engine;
