/**
 * The distributed engine's entry points, on top of its other packages: the Guice modules and {@link
 * dev.quiver.distributed.DistributedExtension} that decorate a session, and {@link
 * dev.quiver.distributed.DistributedQueryPlanner}, the session planner that cuts a plan into stages
 * and runs them on a cluster.
 */
package dev.quiver.distributed;
