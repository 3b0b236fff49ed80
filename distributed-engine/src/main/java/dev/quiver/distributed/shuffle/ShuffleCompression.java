package dev.quiver.distributed.shuffle;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.settings.SessionConfig;
import java.util.Locale;
import java.util.Optional;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;

/**
 * How shuffle batches travel over Flight: as plain Arrow bodies ({@code none}) or as Arrow IPC
 * messages whose buffers are compressed with LZ4 frames or Zstandard (see {@link
 * CompressedBatches}).
 */
public enum ShuffleCompression {
  NONE(CompressionUtil.CodecType.NO_COMPRESSION),
  LZ4(CompressionUtil.CodecType.LZ4_FRAME),
  ZSTD(CompressionUtil.CodecType.ZSTD);

  /** Session (task) setting that chooses the compression of a task's shuffle output. */
  public static final String SETTING = "quiver.shuffle.compression";

  /**
   * The compression an executor uses for tasks that do not set {@link #SETTING}: none, because LZ4
   * (commons-compress, pure Java) costs far more than 10% on loopback (TPC-H SF 0.1, embedded
   * cluster of 2); {@code zstd} (native) was within 2% of none there and saves bytes on networks.
   */
  public static final ShuffleCompression DEFAULT = NONE;

  private final CompressionUtil.CodecType codecType;

  ShuffleCompression(CompressionUtil.CodecType codecType) {
    this.codecType = codecType;
  }

  /** The setting's value for this compression: {@code none}, {@code lz4} or {@code zstd}. */
  public String settingValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** A new codec for this compression (codecs hold no shared state; one per stream is fine). */
  public CompressionCodec newCodec() {
    return this == NONE
        ? NoCompressionCodec.INSTANCE
        : CommonsCompressionFactory.INSTANCE.createCodec(codecType);
  }

  /**
   * Parses {@code none}, {@code lz4} or {@code zstd} (any case).
   *
   * @throws QuiverException naming the accepted values
   */
  public static ShuffleCompression parse(String value) {
    String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    for (ShuffleCompression c : values()) {
      if (c.settingValue().equals(v)) {
        return c;
      }
    }
    throw new QuiverException(SETTING + " must be one of none, lz4 or zstd, got '" + value + "'");
  }

  /** The compression {@code config} sets with {@link #SETTING}, if it sets one. */
  public static Optional<ShuffleCompression> of(SessionConfig config) {
    String v = config.get(SETTING);
    return v == null ? Optional.empty() : Optional.of(parse(v));
  }
}
