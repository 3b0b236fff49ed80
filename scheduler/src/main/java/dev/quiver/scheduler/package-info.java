/** The scheduler server: executor registry over gRPC (jobs and task placement to follow). */
package dev.quiver.scheduler;
