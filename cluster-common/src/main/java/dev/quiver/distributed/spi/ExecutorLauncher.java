package dev.quiver.distributed.spi;

import dev.quiver.distributed.security.SecurityConfig;
import java.nio.file.Path;

/** Starts an executor inside this process (provided by the executor module). */
public interface ExecutorLauncher {
  /**
   * Starts an executor on 127.0.0.1 (a free port) that registers with {@code schedulerTarget}
   * ({@code host:port}).
   *
   * @param workDir where it spills shuffle data; the executor deletes what it wrote on close
   * @param cores task slots
   * @param memoryBytes memory for task data
   * @param security TLS for its Flight server and its channels, and the shared token
   */
  RunningServer start(
      String schedulerTarget, Path workDir, int cores, long memoryBytes, SecurityConfig security)
      throws Exception;

  /**
   * As {@link #start(String, Path, int, long, SecurityConfig)}; with {@code serveHttp}, the
   * executor also serves HTTP (health, metrics) on a free port of 127.0.0.1.
   */
  default RunningServer start(
      String schedulerTarget,
      Path workDir,
      int cores,
      long memoryBytes,
      SecurityConfig security,
      boolean serveHttp)
      throws Exception {
    if (serveHttp) {
      throw new UnsupportedOperationException(getClass().getName() + " cannot serve HTTP");
    }
    return start(schedulerTarget, workDir, cores, memoryBytes, security);
  }

  /** Starts an unsecured executor (plaintext, no token). */
  default RunningServer start(String schedulerTarget, Path workDir, int cores, long memoryBytes)
      throws Exception {
    return start(schedulerTarget, workDir, cores, memoryBytes, SecurityConfig.none());
  }
}
