/**
 * Scans: Quiver's own Parquet reader (footer, row-group and page decoding with ranged reads, one
 * split per row-group range), the CSV tokenizer and value parser, memory-table scans, the fallback
 * through Arrow Dataset, and normalizing what files hold to the engine's types.
 */
package dev.quiver.binding.physical.scan;
