package dev.quiver.binding.physical.scan;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

/**
 * Page bit strings against a boolean array: hybrid-encoded runs of every length (RLE runs and
 * bit-packed groups meeting at any bit of a word), run scans, and copies to an Arrow bitmap at
 * every offset.
 */
class ParquetBitsTest {
  private static boolean[] random(Random r, int n) {
    boolean[] b = new boolean[n];
    int i = 0;
    while (i < n) {
      // Runs of 1 to 150 equal bits, some alternating stretches: both kinds of hybrid run.
      int run = 1 + r.nextInt(r.nextBoolean() ? 3 : 150);
      boolean v = r.nextBoolean();
      for (int k = 0; k < run && i < n; k++, i++) {
        b[i] = run < 4 ? r.nextBoolean() : v;
      }
    }
    return b;
  }

  @Test
  void hybridDecodingAndRunScansMatchTheBits() throws IOException {
    Random r = new Random(7);
    for (int trial = 0; trial < 300; trial++) {
      int n = r.nextInt(700);
      boolean[] want = random(r, n);
      byte[] encoded;
      try (RunLengthBitPackingHybridEncoder e =
          new RunLengthBitPackingHybridEncoder(
              1, 64, 1 << 16, HeapByteBufferAllocator.getInstance())) {
        for (boolean b : want) {
          e.writeInt(b ? 1 : 0);
        }
        encoded = e.toBytes().toByteArray();
      }
      long[] bits = ParquetBits.cleared(new long[1], n);
      int ones = ParquetBits.decodeHybrid(encoded, 0, encoded.length, bits, n);
      int wantOnes = 0;
      for (int i = 0; i < n; i++) {
        assertThat(ParquetBits.bit(bits, i)).as("bit %d of %d", i, n).isEqualTo(want[i]);
        wantOnes += want[i] ? 1 : 0;
      }
      assertThat(ones).isEqualTo(wantOnes);
      int from = n == 0 ? 0 : r.nextInt(n);
      int end = from + (n == from ? 0 : r.nextInt(n - from + 1));
      int set = from;
      while (set < end && !want[set]) {
        set++;
      }
      int clear = from;
      while (clear < end && want[clear]) {
        clear++;
      }
      assertThat(ParquetBits.nextSet(bits, from, end)).isEqualTo(set);
      assertThat(ParquetBits.nextClear(bits, from, end)).isEqualTo(clear);
    }
  }

  @Test
  void copiesLandAtEveryBitOffset() {
    Random r = new Random(8);
    try (RootAllocator allocator = new RootAllocator();
        BitVector v = new BitVector("b", allocator)) {
      for (int trial = 0; trial < 300; trial++) {
        int n = r.nextInt(300);
        boolean[] want = random(r, n + 70);
        long[] bits = ParquetBits.cleared(new long[0], want.length);
        for (int i = 0; i < want.length; i++) {
          if (want[i]) {
            ParquetBits.set(bits, i, 1);
          }
        }
        int from = r.nextInt(70);
        int to = r.nextInt(70);
        v.allocateNew(to + n);
        ParquetBits.copyTo(bits, from, v.getDataBuffer().memoryAddress(), to, n);
        for (int i = 0; i < to + n; i++) {
          boolean expected = i >= to && want[from + i - to];
          assertThat(((v.getDataBuffer().getByte(i >>> 3) >> (i & 7)) & 1) == 1)
              .as("bit %d copying %d bits from %d to %d", i, n, from, to)
              .isEqualTo(expected);
        }
        v.clear();
      }
    }
  }
}
