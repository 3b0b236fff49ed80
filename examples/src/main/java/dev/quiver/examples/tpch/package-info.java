/**
 * TPC-H for the examples and tests: the eight tables generated as Parquet at a scale factor (with
 * trino-tpch's generator) and the 22 queries.
 */
package dev.quiver.examples.tpch;
