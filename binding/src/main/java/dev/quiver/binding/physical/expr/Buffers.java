package dev.quiver.binding.physical.expr;

import dev.quiver.binding.physical.kernel.Raw;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Bulk moves between Arrow buffers and primitive arrays by address after one range check (an NIO
 * view of Arrow memory is built by reflection on every call, which showed in profiles).
 */
final class Buffers {
  private Buffers() {}

  static void readLongs(ArrowBuf buf, long[] out, int n) {
    long a = Raw.address(buf, n * 8L);
    for (int i = 0; i < n; i++) {
      out[i] = Raw.getLong(a + 8L * i);
    }
  }

  static void readInts(ArrowBuf buf, long[] out, int n) {
    long a = Raw.address(buf, n * 4L);
    for (int i = 0; i < n; i++) {
      out[i] = Raw.getInt(a + 4L * i);
    }
  }

  static void readDoubles(ArrowBuf buf, double[] out, int n) {
    long a = Raw.address(buf, n * 8L);
    for (int i = 0; i < n; i++) {
      out[i] = Double.longBitsToDouble(Raw.getLong(a + 8L * i));
    }
  }

  static void writeLongs(ArrowBuf buf, long[] src, int n) {
    long a = Raw.address(buf, n * 8L);
    for (int i = 0; i < n; i++) {
      Raw.putLong(a + 8L * i, src[i]);
    }
  }

  static void writeInts(ArrowBuf buf, long[] src, int n) {
    long a = Raw.address(buf, n * 4L);
    for (int i = 0; i < n; i++) {
      Raw.putInt(a + 4L * i, (int) src[i]);
    }
  }

  static void writeDoubles(ArrowBuf buf, double[] src, int n) {
    long a = Raw.address(buf, n * 8L);
    for (int i = 0; i < n; i++) {
      Raw.putLong(a + 8L * i, Double.doubleToRawLongBits(src[i]));
    }
  }
}
