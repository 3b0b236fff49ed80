/**
 * Running tasks on an executor: the bounded task pool and each task's lifecycle (allocator,
 * context, decoded stage plan run under its shuffle writer, cancellation), typed failure
 * descriptions and status reports to the scheduler.
 */
package dev.quiver.executor.task;
