/** Placeholder until the distributed-engine issue: distributed-engine. */
package dev.quiver.distributed;
