package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.io.ObjectReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;

/**
 * Locates, reads and decodes the Thrift-encoded footer of a Parquet file, checking its framing. The
 * file's last {@link #TAIL_BYTES} bytes are fetched at once, which holds the whole footer of most
 * files (one request on an object store). Decoded footers are cached per object, so that the
 * executors reading a file's row groups do not fetch or decode its footer again for every split; a
 * cached footer is used only for the content it was read from: an object whose version the store
 * names (an S3 ETag, which changes whenever the object is written) is found by location, size and
 * version, and any other (a local file: modification times are too coarse to tell two writes of the
 * same length apart) by location and size after its footer bytes, read again, are compared with the
 * cached ones.
 */
public final class ParquetFooterBytes {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  /** Bytes read from the end of a file in the first request. */
  static final int TAIL_BYTES = 64 << 10;

  /** Footer bytes the cache holds at most (least recently used footers go first). */
  static final long CACHE_BYTES = 64L << 20;

  /** A cached footer's object; {@code version} is null for objects without one. */
  private record Key(String location, long size, String version) {}

  /** A decoded footer and, when its object has no version, the bytes it was decoded from. */
  private record Cached(FileMetaData metadata, byte[] footer, int bytes) {}

  private static final Map<Key, Cached> CACHE = new LinkedHashMap<>(64, 0.75f, true);
  private static long cachedBytes;

  private ParquetFooterBytes() {}

  /**
   * The footer's bytes; throws {@link DataSourceException} naming the file when it is too short,
   * lacks the magic bytes at either end, or has a footer length that does not fit.
   */
  public static byte[] read(ObjectReader in) {
    long size = in.size();
    String file = in.location();
    if (size < 12) {
      throw corrupt(file, "it is only " + size + " bytes long, too short for Parquet");
    }
    int tailLength = (int) Math.min(size, TAIL_BYTES);
    byte[] tail = in.read(size - tailLength, tailLength);
    ByteBuffer end = ByteBuffer.wrap(tail, tailLength - 8, 8).order(ByteOrder.LITTLE_ENDIAN);
    boolean headMagic = tailLength == size ? hasMagic(tail, 0) : hasMagic(in.read(0, 4), 0);
    if (!hasMagic(tail, tailLength - 4) || !headMagic) {
      String text = headMagic ? null : textHead(in.read(0, (int) Math.min(size, 512)));
      if (text != null) {
        throw new DataSourceException(
            "File "
                + file
                + " is not a valid Parquet file: it holds text"
                + (text.startsWith("{") || text.startsWith("[")
                    ? " that looks like JSON"
                    : text.matches(".*[,;|\t].*") ? " that looks like CSV" : "")
                + " (its first line is '"
                + text
                + "'); read CSV with read_csv('"
                + file
                + "')");
      }
      throw corrupt(file, "it does not start and end with the Parquet magic bytes 'PAR1'");
    }
    int footerLength = end.getInt(tailLength - 8);
    if (footerLength <= 0 || footerLength > size - 12) {
      throw corrupt(file, "its footer length " + footerLength + " does not fit in the file");
    }
    if (footerLength <= tailLength - 8) {
      byte[] footer = new byte[footerLength];
      System.arraycopy(tail, tailLength - 8 - footerLength, footer, 0, footerLength);
      return footer;
    }
    return in.read(size - 8 - footerLength, footerLength);
  }

  /** The decoded footer; throws {@link DataSourceException} when it is not valid Parquet. */
  public static FileMetaData readMetadata(ObjectReader in) {
    byte[] footer = read(in);
    try {
      return Util.readFileMetaData(new ByteArrayInputStream(footer));
    } catch (IOException | RuntimeException e) {
      throw corrupt(in.location(), "its footer cannot be decoded (" + e.getMessage() + ")");
    }
  }

  /**
   * The decoded footer of the object {@code in} reads, from the cache when it was read before from
   * the same content: the same {@link ObjectReader#version()} when the reader has one, else the
   * same footer bytes (read again, which costs a local file one small read).
   */
  public static FileMetaData cachedMetadata(ObjectReader in) {
    String version = in.version();
    Key key = new Key(in.location(), in.size(), version);
    if (version != null) {
      synchronized (CACHE) {
        Cached hit = CACHE.get(key);
        if (hit != null) {
          return hit.metadata();
        }
      }
    }
    byte[] footer = read(in);
    if (version == null) {
      synchronized (CACHE) {
        Cached hit = CACHE.get(key);
        if (hit != null && Arrays.equals(hit.footer(), footer)) {
          return hit.metadata();
        }
      }
    }
    FileMetaData m;
    try {
      m = Util.readFileMetaData(new ByteArrayInputStream(footer));
    } catch (IOException | RuntimeException e) {
      throw corrupt(in.location(), "its footer cannot be decoded (" + e.getMessage() + ")");
    }
    Cached entry =
        version == null
            ? new Cached(m, footer, 2 * footer.length)
            : new Cached(m, null, footer.length);
    synchronized (CACHE) {
      Cached old = CACHE.put(key, entry);
      cachedBytes += entry.bytes() - (old == null ? 0 : old.bytes());
      var it = CACHE.values().iterator();
      while (cachedBytes > CACHE_BYTES && it.hasNext()) {
        cachedBytes -= it.next().bytes();
        it.remove();
      }
    }
    return m;
  }

  /** The error for a file that is not valid Parquet, saying why. */
  public static DataSourceException corrupt(String file, String why) {
    return new DataSourceException(
        "File "
            + file
            + " is not a valid Parquet file: "
            + why
            + "; check that it was fully written");
  }

  /**
   * The first line of {@code head}, at most 60 characters, when the bytes are text (no control
   * characters but tab and line breaks); null otherwise.
   */
  private static String textHead(byte[] head) {
    for (byte b : head) {
      if ((b >= 0 && b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f) {
        return null;
      }
    }
    String text = new String(head, java.nio.charset.StandardCharsets.UTF_8).strip();
    int nl = text.indexOf('\n');
    String first = (nl < 0 ? text : text.substring(0, nl)).strip();
    return first.length() > 60 ? first.substring(0, 60) + "..." : first;
  }

  private static boolean hasMagic(byte[] bytes, int at) {
    for (int i = 0; i < 4; i++) {
      if (bytes[at + i] != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }
}
