package dev.quiver.binding.io;

/**
 * One object (file) of a store.
 *
 * @param location its full location: an absolute local path, or {@code s3://bucket/key}
 * @param size its length in bytes
 * @param version what tells this content of the object from any other written at the same location
 *     (an S3 ETag), or null when the store offers nothing reliable (local files, whose modification
 *     times are too coarse)
 */
public record StoredObject(String location, long size, String version) {
  /** An object whose version is not known. */
  public StoredObject(String location, long size) {
    this(location, size, null);
  }
}
