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
    assertThat(decode(9, 7, 10, 3, 0, 4, 0x02, 0x01))
        .containsExactly(3, 3, 3, 3, 3, 0x102, 0x102);
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
  void bitWidthZeroMeansAllZeros() throws IOException {
    assertThat(decode(0, 4, 8)).containsExactly(0, 0, 0, 0);
  }

  @Test
  void truncatedRunsFailWithIoException() {
    assertThatThrownBy(() -> decode(3, 9, 10, 3)).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> decode(8, 2, 4)).isInstanceOf(IOException.class);
  }
}
