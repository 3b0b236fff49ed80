/**
 * Network boundaries between stages: where a producer task's output partition lives ({@link
 * dev.quiver.distributed.shuffle.ShuffleLocation}), the node that reads it back ({@link
 * dev.quiver.distributed.shuffle.ShuffleReaderExec}) and the Arrow Flight client that fetches it
 * ({@link dev.quiver.distributed.shuffle.FlightShuffleClient}).
 */
package dev.quiver.distributed.shuffle;
