/**
 * The executors the scheduler knows: their registrations, heartbeats, liveness and exclusion after
 * repeated failures.
 */
package dev.quiver.scheduler.executors;
