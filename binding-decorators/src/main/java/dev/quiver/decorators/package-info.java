/**
 * Decorators that give the binding's API distributed execution without changing its calls: {@link
 * dev.quiver.decorators.DistributedSessionContext} (a {@code SessionContext}), {@link
 * dev.quiver.decorators.DistributedDataFrame} (a {@code DataFrame}) and {@link
 * dev.quiver.decorators.DistributedTableProvider}. They know nothing of clusters: a {@link
 * dev.quiver.decorators.Distribution} supplied by the distributed engine does the work.
 */
package dev.quiver.decorators;
