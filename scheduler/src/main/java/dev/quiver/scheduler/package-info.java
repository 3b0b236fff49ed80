/** Placeholder until the distributed-engine issue: scheduler. */
package dev.quiver.scheduler;
