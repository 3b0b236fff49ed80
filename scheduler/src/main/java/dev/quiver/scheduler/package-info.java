/** The scheduler server: executor registry, jobs and task placement over gRPC. */
package dev.quiver.scheduler;
