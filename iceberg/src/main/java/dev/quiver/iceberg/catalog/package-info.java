/** Iceberg tables kept in folders (Hadoop layout): creating, loading and committing them. */
package dev.quiver.iceberg.catalog;
