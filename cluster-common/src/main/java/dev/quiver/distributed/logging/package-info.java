/** Logging setup of Quiver's runnable processes: one backend, library noise off, stderr. */
package dev.quiver.distributed.logging;
