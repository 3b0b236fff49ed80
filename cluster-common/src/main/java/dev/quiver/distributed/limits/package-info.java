/**
 * Limits on one query across the cluster: the settings that set them ({@link
 * dev.quiver.distributed.limits.QueryLimits}, capped by the scheduler's flags) and the typed errors
 * a query stopped by one fails with. The executors enforce the memory limit per executor, the
 * scheduler the cluster-wide memory limit, the low-memory killer and the time limits.
 */
package dev.quiver.distributed.limits;
