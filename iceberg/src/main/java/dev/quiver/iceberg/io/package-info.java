/** Iceberg's {@code FileIO} over Quiver's object stores (local files and {@code s3://}). */
package dev.quiver.iceberg.io;
