package dev.quiver.distributed;

import dev.quiver.binding.QuiverException;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.cluster.EmbeddedCluster;

/**
 * Starts and stops what a Guice-wired application uses of a cluster: the embedded servers (if
 * any) and the client connection. The modules only bind it; it starts on the first session (or an
 * explicit {@link #start()}) and the application closes it at the end.
 */
public final class ClusterLifecycle implements AutoCloseable {
  private final ClusterConfig remote;
  private final EmbeddedCluster embedded;
  private ClusterRuntime runtime;
  private boolean closed;

  private ClusterLifecycle(ClusterConfig remote, EmbeddedCluster embedded) {
    this.remote = remote;
    this.embedded = embedded;
  }

  /** A lifecycle over the running cluster of {@code config}. */
  public static ClusterLifecycle remote(ClusterConfig config) {
    return new ClusterLifecycle(config, null);
  }

  /** A lifecycle that starts (and stops) {@code cluster}. */
  public static ClusterLifecycle embedded(EmbeddedCluster cluster) {
    return new ClusterLifecycle(null, cluster);
  }

  /** Starts the servers (embedded) and the connection, once; returns the connection. */
  public synchronized ClusterRuntime start() {
    if (closed) {
      throw new QuiverException("The cluster lifecycle was closed");
    }
    if (runtime == null) {
      ClusterConfig config = embedded != null ? embedded.start().config() : remote;
      runtime = new ClusterRuntime(config);
    }
    return runtime;
  }

  /** The embedded cluster, if this lifecycle runs one. */
  public EmbeddedCluster embeddedCluster() {
    return embedded;
  }

  /** Closes the connection and stops embedded servers. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (runtime != null) {
        runtime.close();
      }
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
  }
}
