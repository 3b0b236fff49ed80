/**
 * The {@code quiver} command line (picocli): {@code sql}, {@code shell}, {@code serve} and {@code
 * tpch}, with their shared options (tables, settings, cluster, output formats) and the progress
 * line.
 */
package dev.quiver.examples.cli;
