/**
 * The wire protocol's Java side: the protocol version handshake and the Arrow Flight ticket
 * encoding shared by shuffle producers and consumers. The messages themselves are generated from
 * {@code quiver.proto} into {@code dev.quiver.distributed.proto}.
 */
package dev.quiver.distributed.wire;
