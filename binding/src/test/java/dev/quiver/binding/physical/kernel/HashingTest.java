package dev.quiver.binding.physical.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.junit.jupiter.api.Test;

class HashingTest {
  /** Keys equal in SQL must hash alike, or a repartition sends them to different partitions. */
  @Test
  void floatingPointKeysHashByValue() {
    try (BufferAllocator allocator = new RootAllocator();
        Float8Vector d = new Float8Vector("d", allocator);
        Float4Vector f = new Float4Vector("f", allocator)) {
      double otherNaN = Double.longBitsToDouble(0x7ff8000000000001L);
      double[] values = {0.0, -0.0, Double.NaN, otherNaN, 1.5};
      d.allocateNew(values.length);
      f.allocateNew(values.length);
      for (int i = 0; i < values.length; i++) {
        d.set(i, values[i]);
        f.set(i, (float) values[i]);
      }
      d.setValueCount(values.length);
      f.setValueCount(values.length);
      for (var v : List.of(d, f)) {
        int[] h = new int[values.length];
        Hashing.hashRows(List.of(v), values.length, h);
        assertThat(h[1]).as("-0.0 and 0.0 in %s", v.getName()).isEqualTo(h[0]);
        assertThat(h[3]).as("two NaNs in %s", v.getName()).isEqualTo(h[2]);
        assertThat(h[4]).isNotEqualTo(h[0]);
      }
    }
  }

  /**
   * Integer keys hash by value whatever their width, so an INT key and a BIGINT key repartition
   * alike; nulls hash to one fixed value; decimals combine their two words.
   */
  @Test
  void fixedWidthKeysHashByValueWithAndWithoutNulls() {
    try (BufferAllocator allocator = new RootAllocator();
        org.apache.arrow.vector.IntVector ints =
            new org.apache.arrow.vector.IntVector("i", allocator);
        org.apache.arrow.vector.BigIntVector longs =
            new org.apache.arrow.vector.BigIntVector("l", allocator);
        org.apache.arrow.vector.DecimalVector decimals =
            new org.apache.arrow.vector.DecimalVector("d", allocator, 20, 0)) {
      int n = 70;
      ints.allocateNew(n);
      longs.allocateNew(n);
      decimals.allocateNew(n);
      for (int i = 0; i < n; i++) {
        ints.set(i, i * 7 - 100);
        longs.set(i, i * 7 - 100);
        decimals.set(i, java.math.BigDecimal.valueOf(i * 7L - 100));
      }
      ints.setValueCount(n);
      longs.setValueCount(n);
      decimals.setValueCount(n);
      int[] fromInts = new int[n];
      int[] fromLongs = new int[n];
      Hashing.hashRows(List.of(ints, longs), n, fromInts);
      Hashing.hashRows(List.of(longs, ints), n, fromLongs);
      for (int i = 0; i < n; i++) {
        int h = Hashing.hashLong(i * 7L - 100);
        assertThat(fromInts[i]).isEqualTo((17 * 31 + h) * 31 + h).isEqualTo(fromLongs[i]);
      }
      int[] withDecimal = new int[n];
      Hashing.hashRows(List.of(decimals), n, withDecimal);
      int[] again = new int[n];
      ints.setNull(3);
      longs.setNull(3);
      decimals.setNull(3);
      ints.setNull(64);
      longs.setNull(64);
      Hashing.hashRows(List.of(ints, longs, decimals), n, again);
      int nullHash = 0x5bd1e995;
      for (int i = 0; i < n; i++) {
        int h = Hashing.hashLong(i * 7L - 100);
        int a = i == 3 || i == 64 ? nullHash : h;
        int d = i == 3 ? nullHash : withDecimal[i] - 17 * 31;
        assertThat(again[i]).as("row %d", i).isEqualTo(((17 * 31 + a) * 31 + a) * 31 + d);
      }
    }
  }
}
