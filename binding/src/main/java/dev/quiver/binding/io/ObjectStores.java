package dev.quiver.binding.io;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.settings.SessionConfig;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Chooses the store for a location by its scheme: {@code s3://} (and {@code s3a://}) go to S3,
 * {@code file://} and bare paths to the local file system. S3 clients are made once per distinct
 * {@link S3Settings} and kept for the life of the process (they pool connections).
 */
public final class ObjectStores {
  private static final Map<S3Settings, S3ObjectStore> S3_STORES = new ConcurrentHashMap<>();
  private static final LongAdder FETCHED = new LongAdder();

  private ObjectStores() {}

  /** Whether {@code location} names an object in S3 rather than a local path. */
  public static boolean isS3(String location) {
    String l = location.trim().toLowerCase(Locale.ROOT);
    return l.startsWith("s3://") || l.startsWith("s3a://");
  }

  /**
   * The location in the form stores and splits use: {@code s3://bucket/key} (no trailing slash) or
   * an absolute, normalized local path.
   */
  public static String normalize(String location) {
    if (location == null || location.isBlank()) {
      throw new QuiverException("A table location needs a path or URI; got an empty one");
    }
    String l = location.trim();
    if (isS3(l)) {
      return S3Location.parse(l).toString();
    }
    int colon = l.indexOf("://");
    if (colon > 0 && !l.toLowerCase(Locale.ROOT).startsWith("file://")) {
      throw new QuiverException(
          "Location "
              + l
              + " has scheme "
              + l.substring(0, colon)
              + ", which Quiver cannot read; use a local path, file:// or s3://bucket/prefix");
    }
    return LocalObjectStore.toPath(l).toString();
  }

  /** The store holding {@code location}, configured by {@code config}'s settings (may be null). */
  public static ObjectStore forLocation(String location, SessionConfig config) {
    if (!isS3(location)) {
      return LocalObjectStore.INSTANCE;
    }
    S3Settings settings = S3Settings.of(config);
    return S3_STORES.computeIfAbsent(settings, S3ObjectStore::new);
  }

  /** Adds {@code bytes} to the process-wide count of bytes read from stores. */
  static void countFetched(long bytes) {
    FETCHED.add(bytes);
  }

  /** Bytes read from any store by this process so far (a metric). */
  public static long fetchedBytes() {
    return FETCHED.sum();
  }
}
