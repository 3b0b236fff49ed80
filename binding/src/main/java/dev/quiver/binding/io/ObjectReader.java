package dev.quiver.binding.io;

import java.util.List;

/**
 * Random access to one object. Every byte returned is counted in the reader's fetched bytes (and
 * the store-wide total), so that scans can report what a query read.
 */
public interface ObjectReader extends AutoCloseable {
  /** The object's location, for error messages. */
  String location();

  /** The object's length in bytes. */
  long size();

  /**
   * The version of the object this reader reads (an S3 ETag: every read checks it), or null when
   * the store offers none; see {@link StoredObject#version()}.
   */
  default String version() {
    return null;
  }

  /**
   * Bytes {@code [offset, offset + length)}; throws {@link
   * dev.quiver.binding.errors.ObjectStoreException} when the object is shorter.
   */
  byte[] read(long offset, int length);

  /**
   * The given ranges, in order. Stores with per-request latency merge nearby ranges and fetch
   * several at once; a range's bytes may then lie inside a larger array.
   */
  List<Slice> readRanges(List<Range> ranges);

  /**
   * As {@link #readRanges(List)}, but a store may read range {@code i} into {@code buffers[i]},
   * replacing a missing or too small array with a larger one it stores back. A caller done with the
   * previous call's bytes passes the same buffers again and so skips allocating (and zeroing) new
   * arrays: a scan reads every row group's column chunks this way. The default ignores the buffers.
   */
  default List<Slice> readRanges(List<Range> ranges, byte[][] buffers) {
    return readRanges(ranges);
  }

  /** Bytes this reader has fetched so far. */
  long fetchedBytes();

  @Override
  void close();

  /** A byte range of an object. */
  record Range(long offset, int length) {
    /** One past the last byte. */
    public long end() {
      return offset + length;
    }
  }

  /** Bytes {@code data[start, start + length)}. */
  record Slice(byte[] data, int start, int length) {}
}
