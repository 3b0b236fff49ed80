/**
 * Running tasks on an executor: the bounded task pool and each task's lifecycle (allocator,
 * context, decoded stage plan, cancellation), the shuffle writer that splits a task's output into
 * partitions, typed failure descriptions and status reports to the scheduler.
 */
package dev.quiver.executor.task;
