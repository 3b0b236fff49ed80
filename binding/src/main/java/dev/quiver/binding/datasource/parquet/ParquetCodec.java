package dev.quiver.binding.datasource.parquet;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.format.CompressionCodec;
import org.xerial.snappy.Snappy;

/**
 * The page compression codecs the writer offers, each through its own library (snappy-java,
 * zstd-jni, java.util.zip) so that no Hadoop codec classes are needed; they are the ones Quiver's
 * reader decompresses.
 */
public enum ParquetCodec {
  UNCOMPRESSED(CompressionCodec.UNCOMPRESSED),
  SNAPPY(CompressionCodec.SNAPPY),
  GZIP(CompressionCodec.GZIP),
  ZSTD(CompressionCodec.ZSTD);

  /** zstd's own default level: a good ratio at several hundred MB/s. */
  private static final int ZSTD_LEVEL = 3;

  private final CompressionCodec thrift;

  ParquetCodec(CompressionCodec thrift) {
    this.thrift = thrift;
  }

  /** The codec as recorded in column chunk metadata. */
  CompressionCodec thrift() {
    return thrift;
  }

  /** The codec named {@code name} (case-insensitive; {@code none} is UNCOMPRESSED). */
  public static ParquetCodec parse(String name) {
    String n = name.trim().toUpperCase(Locale.ROOT);
    if (n.equals("NONE")) {
      return UNCOMPRESSED;
    }
    for (ParquetCodec c : values()) {
      if (c.name().equals(n)) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "Unknown Parquet compression '" + name + "': use uncompressed, snappy, gzip or zstd");
  }

  /** The compressed form of {@code raw} ({@code raw} itself when uncompressed). */
  byte[] compress(byte[] raw) throws IOException {
    return switch (this) {
      case UNCOMPRESSED -> raw;
      case SNAPPY -> Snappy.compress(raw);
      case ZSTD -> Zstd.compress(raw, ZSTD_LEVEL);
      case GZIP -> {
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 2 + 64);
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16)) {
          gz.write(raw);
        }
        yield out.toByteArray();
      }
    };
  }
}
