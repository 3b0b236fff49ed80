package dev.quiver.binding.physical.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Keys inserted are always found, folded and merged filters keep them, few others pass. */
class BloomFilterTest {
  private static int[] randomHashes(long seed, int n) {
    Random r = new Random(seed);
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = r.nextInt();
    }
    return out;
  }

  private static double falsePositiveRate(BloomFilter f, int[] others) {
    int passed = 0;
    for (int h : others) {
      passed += f.mightContain(h) ? 1 : 0;
    }
    return (double) passed / others.length;
  }

  @Test
  void everyInsertedKeyIsFoundAndFewOthersAtSixteenBitsAKey() {
    int[] keys = randomHashes(1, 100_000);
    BloomFilter f = BloomFilter.withBits(16L * keys.length);
    f.insertAll(keys, keys.length);
    for (int k : keys) {
      assertThat(f.mightContain(k)).isTrue();
    }
    assertThat(f.bits()).isEqualTo(1L << 21);
    assertThat(falsePositiveRate(f, randomHashes(2, 200_000))).isLessThan(0.01);
    assertThat(f.fill()).isBetween(0.2, 0.6);
  }

  @Test
  void foldingHalvesTheSizeAndKeepsEveryKey() {
    int[] keys = randomHashes(3, 50_000);
    BloomFilter f = BloomFilter.withBits(1L << 24);
    f.insertAll(keys, keys.length);
    BloomFilter folded = f.foldedTo(16L * keys.length);
    assertThat(folded.bits()).isEqualTo(1L << 19).isLessThanOrEqualTo(16L * keys.length);
    for (int k : keys) {
      assertThat(folded.mightContain(k)).isTrue();
    }
    // Ten bits a key (folding leaves 8-16 when asked for 16): a few percent of others pass.
    assertThat(falsePositiveRate(folded, randomHashes(4, 200_000))).isLessThan(0.05);
    assertThat(f.foldedTo(f.bits())).isSameAs(f);
    assertThat(f.foldedTo(1).bits()).as("one block at least").isEqualTo(256);
  }

  @Test
  void filtersOfTasksMergeByOrAfterFoldingToOneSize() {
    int[] a = randomHashes(5, 10_000);
    int[] b = randomHashes(6, 10_000);
    BloomFilter fa = BloomFilter.withBits(1L << 20);
    fa.insertAll(a, a.length);
    BloomFilter fb = BloomFilter.withBits(1L << 20);
    fb.insertAll(b, b.length);
    BloomFilter merged = fa.foldedTo(1L << 19);
    merged.or(fb.foldedTo(1L << 19));
    for (int k : a) {
      assertThat(merged.mightContain(k)).isTrue();
    }
    for (int k : b) {
      assertThat(merged.mightContain(k)).isTrue();
    }
    assertThatThrownBy(() -> fa.or(fb.foldedTo(1L << 18)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot be merged");
  }

  @Test
  void bytesRoundTripAndForeignBytesAreRefused() {
    int[] keys = randomHashes(7, 1_000);
    BloomFilter f = BloomFilter.withBits(1L << 14);
    f.insertAll(keys, keys.length);
    BloomFilter back = BloomFilter.fromBytes(f.toBytes());
    assertThat(back.bits()).isEqualTo(f.bits());
    for (int k : keys) {
      assertThat(back.mightContain(k)).isTrue();
    }
    assertThat(back.toBytes()).isEqualTo(f.toBytes());
    assertThatThrownBy(() -> BloomFilter.fromBytes(new byte[33]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a Bloom filter");
    assertThatThrownBy(() -> BloomFilter.fromBytes(new byte[96]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BloomFilter.withBits(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
