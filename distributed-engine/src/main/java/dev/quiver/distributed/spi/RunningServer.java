package dev.quiver.distributed.spi;

/** A server started in this process; closing it stops it and releases its port and memory. */
public interface RunningServer extends AutoCloseable {
  /** Identifier (the executor id, or "scheduler"). */
  String id();

  /** {@code host:port} clients and peers connect to. */
  String target();

  @Override
  void close();
}
