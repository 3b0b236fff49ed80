package dev.quiver.binding.physical.scan;

import com.github.luben.zstd.Zstd;
import io.airlift.compress.MalformedInputException;
import io.airlift.compress.lz4.Lz4Decompressor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.apache.parquet.format.CompressionCodec;
import org.xerial.snappy.Snappy;

/**
 * Decompresses Parquet pages with each codec's own Java library (snappy-java, zstd-jni,
 * java.util.zip, aircompressor for LZ4), so that no Hadoop codec classes are needed. BROTLI and LZO
 * have no such library here: files using them are refused by name.
 */
final class ParquetCodecs {
  private ParquetCodecs() {}

  /** Codecs this reader can decompress. */
  static final Set<CompressionCodec> SUPPORTED =
      EnumSet.of(
          CompressionCodec.UNCOMPRESSED,
          CompressionCodec.SNAPPY,
          CompressionCodec.GZIP,
          CompressionCodec.ZSTD,
          CompressionCodec.LZ4,
          CompressionCodec.LZ4_RAW);

  static boolean supports(CompressionCodec codec) {
    return SUPPORTED.contains(codec);
  }

  /**
   * The {@code length} bytes at {@code data[start]} decompressed with {@code codec} into exactly
   * {@code uncompressedSize} bytes (never UNCOMPRESSED: the caller uses those bytes as they are).
   */
  static byte[] decompress(
      CompressionCodec codec, byte[] data, int start, int length, int uncompressedSize)
      throws IOException {
    byte[] out =
        switch (codec) {
          case SNAPPY -> {
            byte[] o = new byte[uncompressedSize];
            int n = Snappy.uncompress(data, start, length, o, 0);
            yield n == uncompressedSize ? o : java.util.Arrays.copyOf(o, n);
          }
          case ZSTD ->
              Zstd.decompress(
                  java.util.Arrays.copyOfRange(data, start, start + length), uncompressedSize);
          case GZIP -> {
            try (GZIPInputStream gz =
                new GZIPInputStream(new ByteArrayInputStream(data, start, length))) {
              yield gz.readNBytes(uncompressedSize);
            }
          }
          case LZ4_RAW -> lz4Block(data, start, length, uncompressedSize);
          case LZ4 -> lz4(data, start, length, uncompressedSize);
          default -> throw new IOException("compression codec " + codec + " is not supported");
        };
    if (out.length != uncompressedSize) {
      throw new IOException(
          "a page decompressed to "
              + out.length
              + " bytes where its header says "
              + uncompressedSize);
    }
    return out;
  }

  /** One raw LZ4 block (LZ4_RAW). */
  private static byte[] lz4Block(byte[] data, int start, int length, int uncompressedSize)
      throws IOException {
    byte[] out = new byte[uncompressedSize];
    int n;
    try {
      n = new Lz4Decompressor().decompress(data, start, length, out, 0, uncompressedSize);
    } catch (MalformedInputException | IndexOutOfBoundsException e) {
      throw new IOException("a page is not valid LZ4: " + e.getMessage(), e);
    }
    return n == uncompressedSize ? out : java.util.Arrays.copyOf(out, n);
  }

  /**
   * The deprecated LZ4 codec: parquet-mr wrote Hadoop's framing (blocks of a big-endian
   * uncompressed length, then chunks of a big-endian compressed length and a raw LZ4 block), some
   * other writers a bare block; like Arrow, try the framing first and fall back to a bare block.
   */
  private static byte[] lz4(byte[] data, int start, int length, int uncompressedSize)
      throws IOException {
    byte[] framed = lz4Hadoop(data, start, length, uncompressedSize);
    return framed != null ? framed : lz4Block(data, start, length, uncompressedSize);
  }

  /** The Hadoop-framed LZ4 data decompressed, or null when it is not framed that way. */
  private static byte[] lz4Hadoop(byte[] data, int start, int length, int uncompressedSize) {
    byte[] out = new byte[uncompressedSize];
    int in = start;
    int end = start + length;
    int written = 0;
    Lz4Decompressor lz4 = new Lz4Decompressor();
    try {
      while (in < end) {
        if (end - in < 8) {
          return null;
        }
        int blockSize = bigEndianInt(data, in);
        in += 4;
        if (blockSize < 0 || blockSize > uncompressedSize - written) {
          return null;
        }
        int blockEnd = written + blockSize;
        while (written < blockEnd) {
          if (end - in < 4) {
            return null;
          }
          int compressed = bigEndianInt(data, in);
          in += 4;
          if (compressed < 0 || compressed > end - in) {
            return null;
          }
          written += lz4.decompress(data, in, compressed, out, written, blockEnd - written);
          in += compressed;
        }
      }
    } catch (MalformedInputException | IndexOutOfBoundsException e) {
      return null;
    }
    return written == uncompressedSize ? out : null;
  }

  private static int bigEndianInt(byte[] b, int at) {
    return (b[at] & 0xFF) << 24
        | (b[at + 1] & 0xFF) << 16
        | (b[at + 2] & 0xFF) << 8
        | b[at + 3] & 0xFF;
  }
}
