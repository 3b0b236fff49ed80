/**
 * The executor server: shuffle output store, its Arrow Flight service and the executor control
 * plane, registered with and heartbeating to the scheduler.
 */
package dev.quiver.executor;
