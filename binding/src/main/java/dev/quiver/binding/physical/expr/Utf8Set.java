package dev.quiver.binding.physical.expr;

import dev.quiver.binding.physical.kernel.Raw;
import java.util.Arrays;
import java.util.List;

/**
 * A fixed set of byte strings probed with values read straight from Arrow buffer memory, so that
 * {@code s IN ('MAIL', 'SHIP')} copies, allocates and boxes nothing per row (open addressing over a
 * hash of the bytes, then a byte comparison).
 */
final class Utf8Set {
  private final byte[][] values;
  private final int[] hashes;
  private final int[] slots;
  private final int mask;

  /** Bit i set when a member has i bytes (i < 63), bit 63 for any longer member. */
  private final long lengths;

  /** Small sets are scanned member by member instead of hashed. */
  private final boolean scan;

  Utf8Set(List<byte[]> members) {
    byte[][] distinct = members.stream().distinct().toArray(byte[][]::new);
    int capacity = Integer.highestOneBit(Math.max(4, distinct.length * 2) - 1) << 1;
    this.mask = capacity - 1;
    this.slots = new int[capacity];
    Arrays.fill(slots, -1);
    byte[][] added = new byte[distinct.length][];
    this.hashes = new int[distinct.length];
    int count = 0;
    long lengthBits = 0;
    for (byte[] v : distinct) {
      lengthBits |= 1L << Math.min(v.length, 63);
      int h = hash(v);
      if (find(added, v, h) >= 0) {
        continue;
      }
      added[count] = v;
      hashes[count] = h;
      int s = h & mask;
      while (slots[s] >= 0) {
        s = (s + 1) & mask;
      }
      slots[s] = count++;
    }
    this.values = Arrays.copyOf(added, count);
    this.lengths = lengthBits;
    this.scan = count <= 4;
  }

  private int find(byte[][] members, byte[] v, int h) {
    for (int s = h & mask; slots[s] >= 0; s = (s + 1) & mask) {
      int i = slots[s];
      if (hashes[i] == h && Arrays.equals(members[i], v)) {
        return i;
      }
    }
    return -1;
  }

  /** Whether the {@code length} bytes at {@code address} are a member. */
  boolean contains(long address, int length) {
    if ((lengths & (1L << Math.min(length, 63))) == 0) {
      return false;
    }
    if (scan) {
      for (byte[] v : values) {
        if (equals(v, address, length)) {
          return true;
        }
      }
      return false;
    }
    int h = hash(address, length);
    for (int s = h & mask; slots[s] >= 0; s = (s + 1) & mask) {
      int i = slots[s];
      if (hashes[i] == h && equals(values[i], address, length)) {
        return true;
      }
    }
    return false;
  }

  private static boolean equals(byte[] v, long address, int length) {
    if (v.length != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (v[i] != Raw.getByte(address + i)) {
        return false;
      }
    }
    return true;
  }

  static int hash(byte[] v) {
    int h = v.length;
    for (byte b : v) {
      h = h * 0x01000193 ^ b;
    }
    return mix(h);
  }

  static int hash(long address, int length) {
    int h = length;
    for (int i = 0; i < length; i++) {
      h = h * 0x01000193 ^ Raw.getByte(address + i);
    }
    return mix(h);
  }

  private static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x85EBCA6B;
    return h ^ (h >>> 13);
  }
}
