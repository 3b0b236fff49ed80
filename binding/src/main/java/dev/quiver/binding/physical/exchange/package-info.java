/**
 * Moving rows between partitions inside one process: hash or round-robin repartitioning and
 * coalescing partitions into one, over bounded channels that give producers backpressure. The
 * distributed engine cuts plans into stages exactly at these nodes.
 */
package dev.quiver.binding.physical.exchange;
