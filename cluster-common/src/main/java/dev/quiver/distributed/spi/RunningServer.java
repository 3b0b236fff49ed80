package dev.quiver.distributed.spi;

/** A server started in this process; closing it stops it and releases its port and memory. */
public interface RunningServer extends AutoCloseable {
  /** Identifier (the executor id, or "scheduler"). */
  String id();

  /** {@code host:port} clients and peers connect to. */
  String target();

  /** The port of its HTTP endpoint (health, metrics; the scheduler's API and UI), or -1. */
  default int httpPort() {
    return -1;
  }

  /**
   * The application is closing the cluster this server belongs to, the others first: what follows
   * (executors leaving) is asked for, not a failure to report.
   */
  default void stopping() {}

  @Override
  void close();
}
