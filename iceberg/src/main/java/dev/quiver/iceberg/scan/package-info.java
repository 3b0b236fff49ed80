/**
 * The Iceberg scan node and what it reads: splits of data files with their delete files, columns
 * mapped by field id and promoted to the table's types, position deletes, deletion vectors and
 * equality deletes applied inside the scan.
 */
package dev.quiver.iceberg.scan;
