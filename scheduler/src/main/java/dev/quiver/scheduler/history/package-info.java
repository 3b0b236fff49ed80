/**
 * The job history: finished jobs kept in an embedded H2 database in the scheduler's state folder,
 * so the jobs API and web UI show them across restarts, pruned by count and age.
 */
package dev.quiver.scheduler.history;
