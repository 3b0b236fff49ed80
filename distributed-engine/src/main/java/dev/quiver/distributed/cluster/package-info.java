/**
 * A whole cluster inside this process ({@link dev.quiver.distributed.cluster.EmbeddedCluster}): a
 * scheduler and executors on loopback, found through the launcher SPI so this module does not
 * depend on the server modules.
 */
package dev.quiver.distributed.cluster;
