/**
 * Writing Iceberg tables: Arrow rows split by the partition spec into Parquet data files (written
 * through one seam, {@link dev.quiver.iceberg.write.ParquetFiles}) with the metrics Iceberg plans
 * with, and each statement published as one commit through the table's catalog.
 */
package dev.quiver.iceberg.write;
