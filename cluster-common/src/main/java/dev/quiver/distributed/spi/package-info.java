/**
 * How the distributed engine starts servers it cannot depend on: the scheduler and executor modules
 * depend on this one, so they provide their launchers through {@link java.util.ServiceLoader} and
 * the embedded cluster finds them at start time.
 */
package dev.quiver.distributed.spi;
