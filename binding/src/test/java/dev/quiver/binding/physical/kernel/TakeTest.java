package dev.quiver.binding.physical.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class TakeTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  @Test
  void gathersEveryVectorKindWithNullsAndPadding() {
    try (BigIntVector longs = new BigIntVector("l", allocator);
        VarCharVector strings = new VarCharVector("s", allocator);
        DecimalVector decimals = new DecimalVector("d", allocator, 15, 2);
        BitVector bools = new BitVector("b", allocator)) {
      longs.allocateNew(3);
      strings.allocateNew(3);
      decimals.allocateNew(3);
      bools.allocateNew(3);
      longs.set(0, 10);
      longs.setNull(1);
      longs.set(2, 30);
      strings.set(0, "a".getBytes(StandardCharsets.UTF_8));
      strings.set(1, "bb".getBytes(StandardCharsets.UTF_8));
      strings.setNull(2);
      decimals.set(0, new BigDecimal("1.25"));
      decimals.set(1, new BigDecimal("-2.50"));
      decimals.setNull(2);
      bools.set(0, 1);
      bools.set(1, 0);
      bools.setNull(2);
      for (FieldVector v : List.<FieldVector>of(longs, strings, decimals, bools)) {
        v.setValueCount(3);
      }
      VectorSchemaRoot root = new VectorSchemaRoot(List.of(longs, strings, decimals, bools));
      int[] idx = {2, 0, -1, 1, 1};
      try (VectorSchemaRoot out = Take.take(root, idx, idx.length, allocator)) {
        assertThat(out.getRowCount()).isEqualTo(5);
        BigIntVector l = (BigIntVector) out.getVector(0);
        assertThat(l.get(0)).isEqualTo(30);
        assertThat(l.get(1)).isEqualTo(10);
        assertThat(l.isNull(2)).isTrue();
        assertThat(l.isNull(3)).isTrue();
        VarCharVector s = (VarCharVector) out.getVector(1);
        assertThat(s.isNull(0)).isTrue();
        assertThat(s.getObject(1).toString()).isEqualTo("a");
        assertThat(s.isNull(2)).isTrue();
        assertThat(s.getObject(4).toString()).isEqualTo("bb");
        DecimalVector d = (DecimalVector) out.getVector(2);
        assertThat(d.getObject(1)).isEqualByComparingTo("1.25");
        assertThat(d.getObject(3)).isEqualByComparingTo("-2.50");
        assertThat(d.isNull(0)).isTrue();
        BitVector b = (BitVector) out.getVector(3);
        assertThat(b.isNull(0)).isTrue();
        assertThat(b.get(1)).isEqualTo(1);
        assertThat(b.get(3)).isEqualTo(0);
      }
      try (VectorSchemaRoot both =
              Batches.concat(root.getSchema(), List.of(root, root), allocator);
          VectorSchemaRoot slice = Batches.slice(both, 2, 3, allocator)) {
        assertThat(both.getRowCount()).isEqualTo(6);
        assertThat(slice.getRowCount()).isEqualTo(3);
        assertThat(((BigIntVector) slice.getVector(0)).get(1)).isEqualTo(10);
      }
    }
  }

  @Test
  void equalKeysHashAlikeAcrossBatchesAndIntWidths() {
    try (BigIntVector a = new BigIntVector("a", allocator);
        VarCharVector s = new VarCharVector("s", allocator)) {
      a.allocateNew(4);
      s.allocateNew(4);
      long[] vals = {7, 8, 7, 9};
      String[] strs = {"x", "y", "x", "x"};
      for (int i = 0; i < 4; i++) {
        a.set(i, vals[i]);
        s.set(i, strs[i].getBytes(StandardCharsets.UTF_8));
      }
      a.setValueCount(4);
      s.setValueCount(4);
      int[] h = new int[4];
      Hashing.hashRows(List.of(a, s), 4, h);
      assertThat(h[0]).isEqualTo(h[2]);
      assertThat(h[0]).isNotEqualTo(h[1]);
      assertThat(h[0]).isNotEqualTo(h[3]);
      assertThat(Hashing.partition(h[0], 4)).isBetween(0, 3);
    }
  }
}
