package dev.quiver.binding.io;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;

/**
 * A place where data files live, addressed by location strings: absolute local paths, or {@code
 * s3://bucket/key}. Errors are {@link dev.quiver.binding.errors.ObjectStoreException}s that name
 * the location.
 */
public interface ObjectStore {
  /**
   * The object at {@code location} alone when it is one, else every object below it as a folder
   * (recursively), sorted by location; throws (not found) when there is neither.
   */
  List<StoredObject> list(String location);

  /** Whether nothing exists at or below {@code location}. */
  boolean isEmpty(String location);

  /** Opens the object for ranged reads; {@code size} is its length when known, else -1. */
  default ObjectReader open(String location, long size) {
    return open(location, size, null);
  }

  /**
   * Opens the object for ranged reads of the content {@code version} names (a {@link
   * StoredObject#version()}; null: whatever is there). A store that checks versions fails a read
   * with an {@link dev.quiver.binding.errors.ObjectStoreException} (reason {@code INVALID}) once
   * the object has been replaced, instead of returning bytes of another content.
   */
  ObjectReader open(String location, long size, String version);

  /** Reads the whole object as a stream (for formats read front to back, like CSV). */
  InputStream openStream(String location);

  /** Starts writing an object at {@code location}. */
  PendingObject create(String location);

  /**
   * Starts an object at {@code location} holding the bytes of local file {@code file}, which the
   * store may move or copy (and the caller deletes afterwards if it still exists).
   */
  PendingObject upload(Path file, String location);

  /** The location of {@code child} (a relative path with '/' separators) under {@code parent}. */
  String resolve(String parent, String child);

  /** Whether the store is the local file system (Arrow's native readers can open its paths). */
  boolean isLocal();
}
