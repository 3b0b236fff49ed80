/**
 * Apache Iceberg tables for Quiver: the {@code iceberg_scan} table function ({@link
 * dev.quiver.iceberg.IcebergScanFunction}, found by {@link java.util.ServiceLoader}). Planning uses
 * iceberg-core for metadata only ({@code table}); data files are read by the binding's Parquet
 * reader, mapped by field id, with deletes applied ({@code scan}); the scan ships to executors
 * through a plan-codec plug-in ({@code codec}); files are reached through Quiver's object stores
 * ({@code io}); tables kept in folders commit through {@code catalog}.
 */
package dev.quiver.iceberg;
