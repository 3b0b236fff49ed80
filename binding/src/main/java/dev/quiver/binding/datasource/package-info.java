/**
 * Tables: the {@link dev.quiver.binding.datasource.TableProvider} interface every table implements
 * (a scan of a {@link dev.quiver.binding.datasource.ScanRequest} answered with an execution plan,
 * and {@link dev.quiver.binding.datasource.TableStatistics}), and the built-in tables: Parquet and
 * CSV files or folders (local or {@code s3://}, with Hive partition folders), in-memory batches,
 * and the writers behind {@code writeParquet} and {@code writeCsv}. A table reads its metadata once
 * when registered and answers scans with the plan nodes of {@code physical.scan}, pruning files and
 * row groups by the scan's filters.
 */
package dev.quiver.binding.datasource;
