package dev.quiver.distributed;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.cluster.EmbeddedCluster;

/**
 * Starts and stops what a Guice-wired application uses of a cluster: the embedded servers (if any)
 * and the client connection. The modules only bind it; it starts on the first session (or an
 * explicit {@link #start()}) and the application closes it at the end.
 */
public final class ClusterLifecycle implements AutoCloseable {
  private final ClusterConfig remote;
  private final EmbeddedCluster embedded;
  private ClusterRuntime runtime;
  private Thread shutdownHook;
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
      if (embedded != null) {
        // An application that closes its sessions but not this lifecycle still exits at once
        // (every thread of the cluster is a daemon); the hook then stops the servers and deletes
        // their work folders. Reference counting sessions was the alternative, but it would stop
        // and restart the cluster for applications that open a session per request.
        shutdownHook = new Thread(this::close, "quiver-embedded-cluster-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
      }
    }
    return runtime;
  }

  /** Closes the connection and stops embedded servers. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        // The JVM is exiting; the hook runs (or ran) this close itself.
      }
    }
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
