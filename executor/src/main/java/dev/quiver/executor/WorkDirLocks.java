package dev.quiver.executor;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks the {@code shuffle-*} and {@code tasks-*} folders an executor creates in its work directory
 * as its own with an OS file lock on a file inside each, held while the executor runs. The OS drops
 * the lock when the process dies, SIGKILL included, so a starting executor tells the folders of
 * dead executors (removed) from those of live ones sharing the work directory (kept).
 */
final class WorkDirLocks implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WorkDirLocks.class);

  /** The lock file inside each owned folder. */
  static final String LOCK_FILE = ".executor.lock";

  /** Prefixes of the folders executors create in their work directory. */
  static final List<String> PREFIXES = List.of("shuffle-", "tasks-");

  /**
   * An unlocked folder (or lock file) younger than this may be a starting executor's, which has not
   * locked it yet; older ones are stale.
   */
  static final Duration UNLOCKED_GRACE = Duration.ofSeconds(10);

  private final List<FileChannel> held = new ArrayList<>();

  /** Locks {@code folder} (one this executor created) until {@link #close()}. */
  synchronized void own(Path folder) throws IOException {
    FileChannel channel =
        FileChannel.open(
            folder.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      if (channel.tryLock() == null) {
        throw new IOException("another process holds the lock of " + folder);
      }
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    held.add(channel);
  }

  /**
   * Deletes the folders of executors that are gone from {@code workDir}: those whose lock nobody
   * holds. Returns how many were removed; failures are logged, never thrown (start goes on).
   */
  static int removeStale(Path workDir) {
    int removed = 0;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(workDir)) {
      for (Path folder : entries) {
        String name = folder.getFileName().toString();
        if (Files.isDirectory(folder)
            && PREFIXES.stream().anyMatch(name::startsWith)
            && stale(folder)) {
          deleteTree(folder);
          removed++;
        }
      }
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      LOG.warn("could not look for stale folders in {}: {}", workDir, e.toString());
    }
    if (removed > 0) {
      LOG.info("removed {} folders left in {} by executors that are gone", removed, workDir);
    }
    return removed;
  }

  static boolean stale(Path folder) throws IOException {
    Path lock = folder.resolve(LOCK_FILE);
    boolean hasLock = Files.exists(lock);
    Path marker = hasLock ? lock : folder;
    if (Files.getLastModifiedTime(marker)
        .toInstant()
        .isAfter(Instant.now().minus(UNLOCKED_GRACE))) {
      return false;
    }
    if (!hasLock) {
      return true;
    }
    try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE)) {
      FileLock l = channel.tryLock();
      if (l == null) {
        return false; // a live executor in another process holds it
      }
      l.release();
      return true;
    } catch (OverlappingFileLockException e) {
      return false; // a live executor in this process holds it
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      LOG.warn("could not delete stale folder {}: {}", root, e.toString());
    }
  }

  /** Releases the locks (the folders are deleted by their owners). */
  @Override
  public synchronized void close() {
    for (FileChannel c : held) {
      try {
        c.close();
      } catch (IOException e) {
        LOG.debug("closing a work directory lock failed: {}", e.toString());
      }
    }
    held.clear();
  }
}
