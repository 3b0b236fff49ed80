package dev.quiver.binding.io;

import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.errors.ObjectStoreException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * Which local files SQL may read and write in this process ({@code read_csv}, {@code read_parquet},
 * Iceberg tables, {@code COPY}, {@code CREATE TABLE ... LOCATION}): everything in the library, and
 * in a server or executor only what lies under the roots it was started with ({@code
 * --allowed-paths}), so that a client cannot read {@code /etc/passwd}, a cluster credential or
 * another job's work files through SQL. Object storage is not local and not restricted here.
 *
 * <p>The policy is process-wide because the process is what a server's operator configures: an
 * embedded cluster's executors run in the server's process and read under the same roots. Paths are
 * compared after resolving symbolic links, so a link inside an allowed root cannot lead out of it;
 * denied paths (work directories, token and key files) are refused even under an allowed root.
 */
public final class LocalFileAccess {
  /** The setting named in refusals. */
  public static final String SETTING = "--allowed-paths";

  /** Null while unrestricted (the library's default). */
  private static volatile List<Path> allowed;

  private static final Set<Path> DENIED = new CopyOnWriteArraySet<>();

  private LocalFileAccess() {}

  /**
   * Restricts SQL's local file access in this process to {@code roots} (none: object storage only)
   * from now on. Roots need not exist yet (e.g. a folder COPY will create).
   */
  public static void restrictTo(Collection<Path> roots) {
    List<Path> real = new ArrayList<>();
    for (Path root : roots) {
      real.add(real(root));
    }
    allowed = List.copyOf(real);
  }

  /**
   * What a server's main does at start: restricts access to {@code roots} and denies {@code denied}
   * (null entries, e.g. options not given, are skipped).
   */
  public static void restrictTo(Collection<Path> roots, Path... denied) {
    for (Path d : denied) {
      deny(d);
    }
    restrictTo(roots);
  }

  /** Lifts the restriction (tests that installed one restore the library's default). */
  public static void unrestricted() {
    allowed = null;
  }

  /** Whether access is restricted in this process. */
  public static boolean restricted() {
    return allowed != null;
  }

  /**
   * Never lets SQL reach {@code path} (a file or a folder and what is under it) while access is
   * restricted, even under an allowed root: work directories, token and key files.
   */
  public static void deny(Path path) {
    if (path != null) {
      DENIED.add(real(path));
    }
  }

  /**
   * Returns {@code path} when SQL may read or write it.
   *
   * @throws ObjectStoreException {@link Reason#NOT_ALLOWED} naming the path and the setting
   */
  public static Path check(Path path) {
    List<Path> roots = allowed;
    if (roots == null) {
      return path;
    }
    Path real = real(path);
    boolean ok =
        roots.stream().anyMatch(real::startsWith) && DENIED.stream().noneMatch(real::startsWith);
    if (!ok) {
      throw new ObjectStoreException(
          Reason.NOT_ALLOWED,
          "Path "
              + path
              + " is not under this server's allowed paths ("
              + SETTING
              + "): a server reads and writes local files only there (object storage is not"
              + " restricted); ask its operator to add the folder to "
              + SETTING);
    }
    return path;
  }

  /**
   * Whether a file found in a listing of an allowed folder is one SQL never sees (a token file or
   * work directory inside it): listings leave those out rather than fail.
   */
  public static boolean hidden(Path path) {
    if (allowed == null || DENIED.isEmpty()) {
      return false;
    }
    Path real = real(path);
    return DENIED.stream().anyMatch(real::startsWith);
  }

  /**
   * {@code path} absolute, normalized, with the symbolic links of its longest existing ancestor
   * resolved (what is below it does not exist yet, so holds no link).
   */
  private static Path real(Path path) {
    Path p = path.toAbsolutePath().normalize();
    Path existing = p;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return p;
    }
    try {
      return existing.toRealPath().resolve(existing.relativize(p));
    } catch (IOException e) {
      return p;
    }
  }
}
