package dev.quiver.distributed.shuffle;

import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * The codecs of compressed shuffle batches, for writing and reading them: LZ4 frames with {@link
 * ShuffleLz4Codec}, the others (Zstandard, none) as Arrow's compression module makes them.
 */
public final class ShuffleCodecs implements CompressionCodec.Factory {
  public static final ShuffleCodecs INSTANCE = new ShuffleCodecs();

  private ShuffleCodecs() {}

  @Override
  public CompressionCodec createCodec(CompressionUtil.CodecType type) {
    return type == CompressionUtil.CodecType.LZ4_FRAME
        ? new ShuffleLz4Codec()
        : CommonsCompressionFactory.INSTANCE.createCodec(type);
  }

  @Override
  public CompressionCodec createCodec(CompressionUtil.CodecType type, int level) {
    return type == CompressionUtil.CodecType.LZ4_FRAME
        ? new ShuffleLz4Codec()
        : CommonsCompressionFactory.INSTANCE.createCodec(type, level);
  }
}
