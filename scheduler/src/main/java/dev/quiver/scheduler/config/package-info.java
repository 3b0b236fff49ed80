/**
 * The scheduler's configuration: ports, timeouts, retention, security, and the speculation and
 * executor-exclusion policies, built from the command line or by an embedding application.
 */
package dev.quiver.scheduler.config;
