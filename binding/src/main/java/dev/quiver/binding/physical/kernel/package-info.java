/**
 * Batch-level kernels shared by operators: hashing key columns, gathering rows by index, slicing
 * and coalescing batches, unchecked buffer access for hot loops and writing literal values.
 */
package dev.quiver.binding.physical.kernel;
