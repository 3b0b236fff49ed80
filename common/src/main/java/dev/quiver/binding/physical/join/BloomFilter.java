package dev.quiver.binding.physical.join;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A split-block Bloom filter over row hashes (those of {@code kernel.Hashing.hashRows}): a set of
 * join keys in a few bits each, which says "maybe present" for every key inserted and for about
 * 2-3% of others at 8 bits a key (0.5% at 16). Each key sets one bit in each of the eight 32-bit
 * words of one 256-bit block, so a test touches one cache line.
 *
 * <p>The block comes from the high bits of a 64-bit mix of the hash, so a filter of 2n blocks folds
 * into one of n (blocks 2i and 2i+1 into i) with every key still present: a filter sized before its
 * keys were counted is shrunk to fit them once they are. Filters of equal size merge by OR, as the
 * outputs of several tasks do.
 */
public final class BloomFilter {
  private static final int[] SALT = {
    0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31
  };
  private static final int WORDS_PER_BLOCK = 8;
  private static final int BLOCK_BITS = 256;
  private static final int MAX_BLOCK_SHIFT = 24; // 2^24 blocks: 4 Gbit, 512 MiB

  private final int[] words;
  private final int blockShift; // log2 of the block count

  private BloomFilter(int blockShift) {
    this(blockShift, new int[WORDS_PER_BLOCK << blockShift]);
  }

  private BloomFilter(int blockShift, int[] words) {
    this.blockShift = blockShift;
    this.words = words;
  }

  /** An empty filter of at least {@code bits} bits (a power of two, at least one 256-bit block). */
  public static BloomFilter withBits(long bits) {
    if (bits <= 0) {
      throw new IllegalArgumentException("a Bloom filter needs a positive size, got " + bits);
    }
    int shift = 0;
    while (shift < MAX_BLOCK_SHIFT && ((long) BLOCK_BITS << shift) < bits) {
      shift++;
    }
    return new BloomFilter(shift);
  }

  /** The filter's size in bits. */
  public long bits() {
    return (long) BLOCK_BITS << blockShift;
  }

  /** Adds the key of row hash {@code hash}. */
  public void insert(int hash) {
    long h = mix(hash);
    int base = block(h) * WORDS_PER_BLOCK;
    int low = (int) h;
    for (int i = 0; i < WORDS_PER_BLOCK; i++) {
      words[base + i] |= 1 << ((low * SALT[i]) >>> 27);
    }
  }

  /** Adds the keys of {@code hashes[0..n)}. */
  public void insertAll(int[] hashes, int n) {
    for (int r = 0; r < n; r++) {
      insert(hashes[r]);
    }
  }

  /** False when no key of row hash {@code hash} was inserted; true when one may have been. */
  public boolean mightContain(int hash) {
    long h = mix(hash);
    int base = block(h) * WORDS_PER_BLOCK;
    int low = (int) h;
    for (int i = 0; i < WORDS_PER_BLOCK; i++) {
      if ((words[base + i] & (1 << ((low * SALT[i]) >>> 27))) == 0) {
        return false;
      }
    }
    return true;
  }

  /** Adds every key of {@code other}, a filter of the same size. */
  public void or(BloomFilter other) {
    if (other.blockShift != blockShift) {
      throw new IllegalArgumentException(
          "Bloom filters of " + bits() + " and " + other.bits() + " bits cannot be merged");
    }
    for (int i = 0; i < words.length; i++) {
      words[i] |= other.words[i];
    }
  }

  /**
   * This filter folded to at most {@code bits} bits (at least one block), holding every key this
   * one holds; this filter itself when it is no larger.
   */
  public BloomFilter foldedTo(long bits) {
    int shift = blockShift;
    int[] folded = words;
    while (shift > 0 && ((long) BLOCK_BITS << shift) > bits) {
      int[] half = new int[folded.length / 2];
      for (int b = 0; b < (1 << (shift - 1)); b++) {
        for (int i = 0; i < WORDS_PER_BLOCK; i++) {
          half[b * WORDS_PER_BLOCK + i] =
              folded[2 * b * WORDS_PER_BLOCK + i] | folded[(2 * b + 1) * WORDS_PER_BLOCK + i];
        }
      }
      folded = half;
      shift--;
    }
    return folded == words ? this : new BloomFilter(shift, folded);
  }

  /** The share of the filter's bits that are set, from 0 to 1. */
  public double fill() {
    long set = 0;
    for (int w : words) {
      set += Integer.bitCount(w);
    }
    return (double) set / bits();
  }

  /** The filter as bytes (its words, little-endian), for {@link #fromBytes}. */
  public byte[] toBytes() {
    ByteBuffer out = ByteBuffer.allocate(words.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    out.asIntBuffer().put(words);
    return out.array();
  }

  /** The filter {@link #toBytes} wrote. */
  public static BloomFilter fromBytes(byte[] bytes) {
    int blockBytes = BLOCK_BITS / 8;
    int blocks = bytes.length / blockBytes;
    if (bytes.length % blockBytes != 0
        || Integer.bitCount(blocks) != 1
        || Integer.numberOfTrailingZeros(blocks) > MAX_BLOCK_SHIFT) {
      throw new IllegalArgumentException(
          "not a Bloom filter: "
              + bytes.length
              + " bytes is not a power of two of "
              + blockBytes
              + "-byte blocks");
    }
    int[] words = new int[bytes.length / 4];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(words);
    return new BloomFilter(Integer.numberOfTrailingZeros(blocks), words);
  }

  private int block(long h) {
    return blockShift == 0 ? 0 : (int) (h >>> (64 - blockShift));
  }

  /** A 64-bit mix of a 32-bit row hash (SplitMix64's finalizer): its bits look independent. */
  private static long mix(int hash) {
    long z = hash * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
