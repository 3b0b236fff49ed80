package dev.quiver.binding.physical.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The RLE / bit-packing hybrid decoder on hand-built runs (files cover the common shapes). */
class ParquetPageDecoderTest {
  private static int[] decode(int bitWidth, int count, int... bytes) throws IOException {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    int[] out = new int[count];
    ParquetPageDecoder.decodeHybrid(b, 0, b.length, bitWidth, out, count);
    return out;
  }

  @Test
  void repeatedRunsRepeatTheirValue() throws IOException {
    // Header 5 << 1 = RLE run of 5; value 3 in one byte; then a run of 2 of value 0x0102 (2 bytes).
    assertThat(decode(3, 5, 10, 3)).containsExactly(3, 3, 3, 3, 3);
    assertThat(decode(9, 7, 10, 3, 0, 4, 0x02, 0x01)).containsExactly(3, 3, 3, 3, 3, 0x102, 0x102);
  }

  @Test
  void bitPackedGroupsUnpackLeastSignificantBitFirst() throws IOException {
    // Header (1 << 1) | 1 = one group of 8 values of 3 bits: 0..7 packed as 0x88, 0xC6, 0xFA.
    assertThat(decode(3, 8, 3, 0x88, 0xC6, 0xFA)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    // Only the values asked for are taken from a group padded to 8.
    assertThat(decode(3, 3, 3, 0x88, 0xC6, 0xFA)).containsExactly(0, 1, 2);
    // Bit width 1 (definition levels).
    assertThat(decode(1, 8, 3, 0b1011_0101)).containsExactly(1, 0, 1, 0, 1, 1, 0, 1);
  }

  @Test
  void bitPackedRunsOfEveryWidthRoundTrip() throws IOException {
    java.util.Random random = new java.util.Random(42);
    for (int width = 1; width <= 32; width++) {
      int groups = 5;
      int[] values = new int[groups * 8];
      for (int i = 0; i < values.length; i++) {
        values[i] = (int) (random.nextLong() & (width == 32 ? 0xFFFFFFFFL : (1L << width) - 1));
      }
      // Header: (groups << 1) | 1, then the values packed least significant bit first.
      byte[] packed = new byte[1 + groups * width];
      packed[0] = (byte) ((groups << 1) | 1);
      for (int i = 0; i < values.length; i++) {
        for (int bit = 0; bit < width; bit++) {
          if ((values[i] >>> bit & 1) != 0) {
            int at = i * width + bit;
            packed[1 + at / 8] |= (byte) (1 << (at % 8));
          }
        }
      }
      int[] out = new int[values.length];
      ParquetPageDecoder.decodeHybrid(packed, 0, packed.length, width, out, out.length);
      assertThat(out).as("bit width %d", width).containsExactly(values);
      // Fewer values than the run holds: the rest of the run is skipped.
      int[] some = new int[values.length - 3];
      ParquetPageDecoder.decodeHybrid(packed, 0, packed.length, width, some, some.length);
      assertThat(some).containsExactly(java.util.Arrays.copyOf(values, some.length));
    }
  }

  @Test
  void bitWidthZeroMeansAllZeros() throws IOException {
    assertThat(decode(0, 4, 8)).containsExactly(0, 0, 0, 0);
  }

  @Test
  void truncatedRunsFailWithIoException() {
    assertThatThrownBy(() -> decode(3, 9, 10, 3)).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> decode(8, 2, 4)).isInstanceOf(IOException.class);
  }
}
