package dev.quiver.binding.physical.expr;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Bulk moves between Arrow buffers and primitive arrays through little-endian NIO views, which
 * avoids a bounds check per element.
 */
final class Buffers {
  private Buffers() {}

  private static ByteBuffer view(ArrowBuf buf, long bytes) {
    return buf.nioBuffer(0, (int) bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  static void readLongs(ArrowBuf buf, long[] out, int n) {
    if (n > 0) {
      view(buf, n * 8L).asLongBuffer().get(out, 0, n);
    }
  }

  static void readInts(ArrowBuf buf, long[] out, int n) {
    if (n > 0) {
      int[] tmp = new int[n];
      view(buf, n * 4L).asIntBuffer().get(tmp, 0, n);
      for (int i = 0; i < n; i++) {
        out[i] = tmp[i];
      }
    }
  }

  static void readDoubles(ArrowBuf buf, double[] out, int n) {
    if (n > 0) {
      view(buf, n * 8L).asDoubleBuffer().get(out, 0, n);
    }
  }

  static void writeLongs(ArrowBuf buf, long[] src, int n) {
    if (n > 0) {
      view(buf, n * 8L).asLongBuffer().put(src, 0, n);
    }
  }

  static void writeInts(ArrowBuf buf, long[] src, int n) {
    if (n > 0) {
      int[] tmp = new int[n];
      for (int i = 0; i < n; i++) {
        tmp[i] = (int) src[i];
      }
      view(buf, n * 4L).asIntBuffer().put(tmp, 0, n);
    }
  }

  static void writeDoubles(ArrowBuf buf, double[] src, int n) {
    if (n > 0) {
      view(buf, n * 8L).asDoubleBuffer().put(src, 0, n);
    }
  }
}
