package dev.quiver.executor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Checks that the directories an executor writes spill and shuffle files to can still be written:
 * creates, writes and deletes a small file in each. An executor whose check fails reports itself
 * not ready, and a task that failed on it is retried on another executor.
 */
public final class WorkDirProbe {
  private static final byte[] PROBE = new byte[] {'q', 'u', 'i', 'v', 'e', 'r'};

  private final List<Path> dirs;

  /** Probes {@code dirs} (each is created if missing). */
  public WorkDirProbe(List<Path> dirs) {
    this.dirs = List.copyOf(dirs);
  }

  /** What is wrong with the first directory that cannot be written, or empty when all can. */
  public Optional<String> problem() {
    for (Path dir : dirs) {
      try {
        Files.createDirectories(dir);
        Path file = Files.createTempFile(dir, ".probe-", ".tmp");
        try {
          Files.write(file, PROBE);
        } finally {
          Files.deleteIfExists(file);
        }
      } catch (IOException | RuntimeException e) {
        return Optional.of("work directory " + dir + " cannot be written: " + e);
      }
    }
    return Optional.empty();
  }
}
