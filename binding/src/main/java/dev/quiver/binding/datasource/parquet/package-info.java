/**
 * Parquet writing in Java, without Hadoop or native code: {@link
 * dev.quiver.binding.datasource.parquet.ParquetFileWriter} takes Arrow batches and writes one
 * Parquet file to any stream (a local file, an object store upload), laid out by {@link
 * dev.quiver.binding.datasource.parquet.ParquetWriteOptions} (row group and page sizes, dictionary
 * encoding, {@link dev.quiver.binding.datasource.parquet.ParquetCodec compression}); its {@code
 * finish()} returns the footer, whose row groups carry the per-column statistics and sizes that
 * table formats record. parquet-column encodes the pages; this package maps Arrow types onto
 * Parquet's, shreds nested columns into levels and lays out row groups and the footer.
 */
package dev.quiver.binding.datasource.parquet;
