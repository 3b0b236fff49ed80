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

  /** Removes the object at {@code location}, if there is one. */
  void delete(String location);

  /**
   * Publishes objects written together, all of them or, as far as the store allows, none: the
   * caller has closed each (so every byte is stored, unpublished, before the first appears); they
   * are committed in order, and when one fails the ones already visible are deleted and the rest
   * aborted, so a failed publish leaves nothing. A store has no transaction over several objects:
   * between the first commit and the last (one short request each in S3) readers may see some, and
   * a process killed then leaves them. Throws what the failed commit threw.
   */
  default void publishAll(java.util.List<PendingObject> objects) {
    int committed = 0;
    try {
      for (PendingObject o : objects) {
        o.commit();
        committed++;
      }
    } catch (RuntimeException e) {
      for (int i = committed; i < objects.size(); i++) {
        objects.get(i).abort();
      }
      for (int i = 0; i < committed; i++) {
        try {
          delete(objects.get(i).location());
        } catch (RuntimeException undo) {
          e.addSuppressed(undo);
        }
      }
      throw e;
    }
  }

  /** The location of {@code child} (a relative path with '/' separators) under {@code parent}. */
  String resolve(String parent, String child);

  /** Whether the store is the local file system (Arrow's native readers can open its paths). */
  boolean isLocal();
}
