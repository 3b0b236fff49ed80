package dev.quiver.binding.io;

import dev.quiver.binding.errors.QuiverException;

/** A bucket and key parsed from {@code s3://bucket/key} (or {@code s3a://}). */
record S3Location(String bucket, String key) {
  static S3Location parse(String uri) {
    String u = uri.trim();
    int scheme = u.indexOf("://");
    String rest = u.substring(scheme + 3);
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String key = slash < 0 ? "" : rest.substring(slash + 1);
    while (key.endsWith("/")) {
      key = key.substring(0, key.length() - 1);
    }
    while (key.startsWith("/")) {
      key = key.substring(1);
    }
    if (bucket.isEmpty()) {
      throw new QuiverException(
          "S3 location " + uri + " names no bucket; write s3://bucket/prefix");
    }
    return new S3Location(bucket, key);
  }

  /** The key as a folder prefix: empty for the bucket's root, else the key and a slash. */
  String folderPrefix() {
    return key.isEmpty() ? "" : key + "/";
  }

  @Override
  public String toString() {
    return key.isEmpty() ? "s3://" + bucket : "s3://" + bucket + "/" + key;
  }
}
