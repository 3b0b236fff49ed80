package dev.quiver.binding.physical.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.airlift.compress.lz4.Lz4Compressor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/** Each codec decompresses what its own library compressed, at an offset inside a larger array. */
class ParquetCodecsTest {
  /** A page-like payload: repetitive enough to compress, irregular enough to need literals. */
  private static byte[] payload(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i % 251 ^ (i / 1000));
    }
    return b;
  }

  /** {@code compressed} behind 3 junk bytes and followed by 5, as a page sits in a chunk. */
  private static byte[] decompress(CompressionCodec codec, byte[] compressed, int size)
      throws IOException {
    byte[] chunk = new byte[compressed.length + 8];
    Arrays.fill(chunk, (byte) 0x77);
    System.arraycopy(compressed, 0, chunk, 3, compressed.length);
    return ParquetCodecs.decompress(codec, chunk, 3, compressed.length, size);
  }

  private static byte[] lz4Block(byte[] data, int from, int to) {
    Lz4Compressor c = new Lz4Compressor();
    byte[] out = new byte[c.maxCompressedLength(to - from)];
    int n = c.compress(data, from, to - from, out, 0, out.length);
    return Arrays.copyOf(out, n);
  }

  @Test
  void snappyZstdAndGzip() throws IOException {
    byte[] data = payload(50_000);
    assertThat(decompress(CompressionCodec.SNAPPY, Snappy.compress(data), data.length))
        .isEqualTo(data);
    assertThat(
            decompress(
                CompressionCodec.ZSTD, com.github.luben.zstd.Zstd.compress(data), data.length))
        .isEqualTo(data);
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write(data);
    }
    assertThat(decompress(CompressionCodec.GZIP, gz.toByteArray(), data.length)).isEqualTo(data);
  }

  @Test
  void lz4RawIsOneBlock() throws IOException {
    byte[] data = payload(40_000);
    assertThat(decompress(CompressionCodec.LZ4_RAW, lz4Block(data, 0, data.length), data.length))
        .isEqualTo(data);
  }

  /** parquet-mr's LZ4: blocks of (uncompressed length, then chunks of compressed length + data). */
  @Test
  void lz4ReadsHadoopFramingAndBareBlocks() throws IOException {
    byte[] data = payload(70_000);
    ByteBuffer framed = ByteBuffer.allocate(100_000);
    // Two blocks; the first in two chunks, as Hadoop's stream writes a block it had to cut.
    int[][] blocks = {{0, 30_000, 12_000}, {30_000, 70_000, 70_000}};
    for (int[] block : blocks) {
      framed.putInt(block[1] - block[0]);
      for (int from = block[0]; from < block[1]; from = Math.min(block[1], from + block[2])) {
        byte[] chunk = lz4Block(data, from, Math.min(block[1], from + block[2]));
        framed.putInt(chunk.length).put(chunk);
      }
    }
    byte[] hadoop = Arrays.copyOf(framed.array(), framed.position());
    assertThat(decompress(CompressionCodec.LZ4, hadoop, data.length)).isEqualTo(data);
    // Some writers put a bare block under the same codec: read as one.
    assertThat(decompress(CompressionCodec.LZ4, lz4Block(data, 0, data.length), data.length))
        .isEqualTo(data);
  }

  @Test
  void brotliAndLzoAreNotSupported() {
    assertThat(ParquetCodecs.supports(CompressionCodec.BROTLI)).isFalse();
    assertThat(ParquetCodecs.supports(CompressionCodec.LZO)).isFalse();
    assertThatThrownBy(() -> decompress(CompressionCodec.BROTLI, new byte[4], 4))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("BROTLI");
  }

  @Test
  void aSizeOtherThanTheHeaderSaysFails() {
    byte[] data = payload(1000);
    assertThatThrownBy(() -> decompress(CompressionCodec.LZ4_RAW, lz4Block(data, 0, 1000), 1200))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("1200");
  }
}
