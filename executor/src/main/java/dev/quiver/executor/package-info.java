/** Placeholder until the distributed-engine issue: executor. */
package dev.quiver.executor;
