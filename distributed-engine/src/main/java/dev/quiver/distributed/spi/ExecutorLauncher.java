package dev.quiver.distributed.spi;

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
   */
  RunningServer start(String schedulerTarget, Path workDir, int cores, long memoryBytes)
      throws Exception;
}
