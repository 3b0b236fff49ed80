package dev.quiver.binding.io;

/**
 * One object (file) of a store.
 *
 * @param location its full location: an absolute local path, or {@code s3://bucket/key}
 * @param size its length in bytes
 */
public record StoredObject(String location, long size) {}
