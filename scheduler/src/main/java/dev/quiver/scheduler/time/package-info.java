/** The scheduler's clock, which decides its timeouts and which tests advance by hand. */
package dev.quiver.scheduler.time;
