package dev.quiver.distributed.shuffle;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.settings.SessionConfig;
import java.util.Locale;
import java.util.Optional;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;

/**
 * How shuffle batches travel over Flight: as plain Arrow bodies ({@code none}), as Arrow IPC
 * messages whose buffers are compressed with LZ4 frames or Zstandard (see {@link
 * CompressedBatches}), or ({@code auto}) plain until the link is what holds a stream back, then
 * with Zstandard (the executor's {@code LinkPace} decides).
 */
public enum ShuffleCompression {
  NONE(CompressionUtil.CodecType.NO_COMPRESSION),
  LZ4(CompressionUtil.CodecType.LZ4_FRAME),
  ZSTD(CompressionUtil.CodecType.ZSTD),
  /** Zstandard where the link is the bottleneck, else none. */
  AUTO(CompressionUtil.CodecType.ZSTD);

  /** Session (task) setting that chooses the compression of a task's shuffle output. */
  public static final String SETTING = "quiver.shuffle.compression";

  /**
   * The compression an executor uses for tasks that do not set {@link #SETTING}: {@code auto}. A
   * fixed codec costs CPU where the link is fast and saves time where it is slow; {@code auto}
   * compresses only streams the link holds back.
   */
  public static final ShuffleCompression DEFAULT = AUTO;

  private final CompressionUtil.CodecType codecType;

  ShuffleCompression(CompressionUtil.CodecType codecType) {
    this.codecType = codecType;
  }

  /**
   * The setting's value for this compression: {@code none}, {@code lz4}, {@code zstd} or {@code
   * auto}.
   */
  public String settingValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * A new codec for this compression, Zstandard's for {@code auto} (codecs hold no shared state;
   * one per stream is fine).
   */
  public CompressionCodec newCodec() {
    return this == NONE
        ? NoCompressionCodec.INSTANCE
        : ShuffleCodecs.INSTANCE.createCodec(codecType);
  }

  /**
   * Parses {@code none}, {@code lz4}, {@code zstd} or {@code auto} (any case).
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
    throw new QuiverException(
        SETTING + " must be one of none, lz4, zstd or auto, got '" + value + "'");
  }

  /** The compression {@code config} sets with {@link #SETTING}, if it sets one. */
  public static Optional<ShuffleCompression> of(SessionConfig config) {
    String v = config.get(SETTING);
    return v == null ? Optional.empty() : Optional.of(parse(v));
  }
}
