/**
 * An Iceberg snapshot as a Quiver table: metadata-file discovery, planning with iceberg-core
 * (partition and column-bound pruning from the scan's filters, splits by target size) into scan
 * nodes.
 */
package dev.quiver.iceberg.table;
