package dev.quiver.distributed.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.apache.arrow.compression.Lz4CompressionCodec;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Shuffle buffers through {@link ShuffleLz4Codec}: whole, as standard LZ4 frames, and checked. */
@Timeout(60)
class ShuffleLz4CodecTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void buffersOfEverySizeComeBackWhole() {
    CompressionCodec codec =
        ShuffleCodecs.INSTANCE.createCodec(CompressionUtil.CodecType.LZ4_FRAME);
    assertThat(codec).isInstanceOf(ShuffleLz4Codec.class);
    Random random = new Random(7);
    for (int size : new int[] {0, 1, 100, 65_535, 65_536, 65_537, 300_000, 5_000_000}) {
      for (boolean compressible : new boolean[] {true, false}) {
        byte[] data = bytes(size, compressible, random);
        assertThat(roundTrip(codec, codec, data)).as(size + " bytes").isEqualTo(data);
      }
    }
  }

  @Test
  void framesAreStandardLz4FramesBothWays() {
    // Arrow's own LZ4_FRAME codec (any Arrow reader) decodes ours, and ours decodes its frames.
    CompressionCodec ours = new ShuffleLz4Codec();
    CompressionCodec arrows = new Lz4CompressionCodec();
    Random random = new Random(11);
    for (int size : new int[] {1, 4_000, 70_000}) {
      byte[] data = bytes(size, true, random);
      assertThat(roundTrip(ours, arrows, data)).as("ours to Arrow's, " + size).isEqualTo(data);
      assertThat(roundTrip(arrows, ours, data)).as("Arrow's to ours, " + size).isEqualTo(data);
    }
  }

  @Test
  void aDamagedFrameIsRefusedNamingTheProblem() {
    CompressionCodec codec = new ShuffleLz4Codec();
    byte[] data = bytes(50_000, true, new Random(3));
    ArrowBuf compressed = codec.compress(allocator, copy(data));
    // A header claiming more bytes than the frame holds.
    compressed.setLong(0, data.length + 10L);
    assertThatThrownBy(() -> codec.decompress(allocator, compressed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("where its header says " + (data.length + 10));
    // A codec releases the compressed buffer only when it decoded it.
    compressed.close();

    ArrowBuf garbage = allocator.buffer(64);
    garbage.setLong(0, 1000);
    for (int i = 8; i < 64; i++) {
      garbage.setByte(i, i * 31);
    }
    garbage.writerIndex(64);
    assertThatThrownBy(() -> codec.decompress(allocator, garbage))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a valid LZ4 frame");
    garbage.close();
  }

  private byte[] roundTrip(CompressionCodec writer, CompressionCodec reader, byte[] data) {
    ArrowBuf compressed = writer.compress(allocator, copy(data));
    try (ArrowBuf back = reader.decompress(allocator, compressed)) {
      byte[] out = new byte[(int) back.writerIndex()];
      back.getBytes(0, out);
      return out;
    }
  }

  private ArrowBuf copy(byte[] data) {
    ArrowBuf buf = allocator.buffer(Math.max(1, data.length));
    buf.setBytes(0, data);
    buf.writerIndex(data.length);
    return buf;
  }

  private static byte[] bytes(int size, boolean compressible, Random random) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = compressible ? (byte) ((i / 7) % 13) : (byte) random.nextInt();
    }
    return b;
  }
}
