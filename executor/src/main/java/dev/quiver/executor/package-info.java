/**
 * The executor server: shuffle output store, its Arrow Flight service and the executor control
 * plane (launch, cancel, remove job data), registered with and heartbeating to the scheduler; the
 * extension jars it loads and its embedded launcher.
 */
package dev.quiver.executor;
