package dev.quiver.distributed.spi;

/** Starts a scheduler inside this process (provided by the scheduler module). */
public interface SchedulerLauncher {
  /**
   * Starts a scheduler listening on 127.0.0.1:{@code port} (0 picks a free port).
   *
   * @param heartbeatTimeoutMillis silence after which an executor is declared lost
   */
  RunningServer start(int port, long heartbeatTimeoutMillis) throws Exception;
}
