package dev.quiver.distributed.security;

/**
 * Who a call comes from, as its token says. A cluster with a cluster credential
 * (--cluster-token-file) tells executors and the scheduler ({@link #CLUSTER}) from clients ({@link
 * #CLIENT}); without one, the single shared token (or no token at all) gives every caller the
 * cluster role, as before roles existed.
 */
public enum Role {
  /** A client: submits, watches, cancels and releases its own jobs and reads their results. */
  CLIENT,
  /** An executor or the scheduler: registers, launches tasks, reports them, reads any shuffle. */
  CLUSTER
}
