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
}
