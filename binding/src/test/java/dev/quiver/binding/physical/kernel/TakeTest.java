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

  /**
   * Widths 2, 4, 8, 16 and strings, sources with and without nulls, index lists with and without
   * padding (-1) and of lengths around the validity word boundaries.
   */
  @Test
  void gathersEachWidthAndValidityAroundWordBoundaries() {
    java.util.Random rnd = new java.util.Random(3);
    int rows = 300;
    for (boolean nulls : new boolean[] {false, true}) {
      try (org.apache.arrow.vector.SmallIntVector shorts =
              new org.apache.arrow.vector.SmallIntVector("h", allocator);
          org.apache.arrow.vector.IntVector ints =
              new org.apache.arrow.vector.IntVector("i", allocator);
          BigIntVector longs = new BigIntVector("l", allocator);
          DecimalVector decimals = new DecimalVector("d", allocator, 20, 0);
          VarCharVector strings = new VarCharVector("s", allocator)) {
        List<FieldVector> vectors = List.of(shorts, ints, longs, decimals, strings);
        vectors.forEach(v -> v.setInitialCapacity(rows));
        vectors.forEach(FieldVector::allocateNew);
        for (int r = 0; r < rows; r++) {
          if (nulls && r % 5 == 1) {
            continue; // left null
          }
          shorts.set(r, (short) r);
          ints.set(r, r * 3);
          longs.set(r, r * 1_000_000_007L);
          decimals.set(r, BigDecimal.valueOf(-r));
          strings.setSafe(r, ("v" + r).getBytes(StandardCharsets.UTF_8));
        }
        vectors.forEach(v -> v.setValueCount(rows));
        for (int count : new int[] {0, 1, 7, 8, 9, 63, 64, 65, 130, 300}) {
          for (boolean padded : new boolean[] {false, true}) {
            int[] idx = new int[count];
            for (int i = 0; i < count; i++) {
              idx[i] = padded && rnd.nextInt(4) == 0 ? -1 : rnd.nextInt(rows);
            }
            for (FieldVector v : vectors) {
              // Counting the nulls, and told there may be some (a caller's cached flag).
              try (FieldVector counted = Take.take(v, idx, count, allocator);
                  FieldVector told = Take.take(v, true, idx, count, allocator)) {
                for (FieldVector out : List.of(counted, told)) {
                  assertThat(out.getValueCount()).isEqualTo(count);
                  for (int i = 0; i < count; i++) {
                    Object want = idx[i] < 0 ? null : v.getObject(idx[i]);
                    assertThat(out.getObject(i))
                        .as("%s row %d of %d (nulls=%s)", v.getName(), i, count, nulls)
                        .isEqualTo(want);
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  /** Concatenation sets runs of validity bits starting mid-byte and crossing 64-bit words. */
  @Test
  void concatenatesValidityAtUnalignedPositions() {
    int[] sizes = {3, 70, 200, 129, 5, 64};
    List<VectorSchemaRoot> parts = new java.util.ArrayList<>();
    List<Boolean> expected = new java.util.ArrayList<>();
    try {
      for (int p = 0; p < sizes.length; p++) {
        BigIntVector v = new BigIntVector("l", allocator);
        v.allocateNew(sizes[p]);
        for (int r = 0; r < sizes[p]; r++) {
          boolean isNull = p % 2 == 1 && r % 3 == 0;
          if (!isNull) {
            v.set(r, r);
          }
          expected.add(isNull);
        }
        v.setValueCount(sizes[p]);
        parts.add(new VectorSchemaRoot(List.<FieldVector>of(v)));
      }
      try (VectorSchemaRoot all = Batches.concat(parts.get(0).getSchema(), parts, allocator)) {
        FieldVector v = all.getVector(0);
        assertThat(v.getValueCount()).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
          assertThat(v.isNull(i)).as("row %d", i).isEqualTo(expected.get(i));
        }
      }
    } finally {
      parts.forEach(VectorSchemaRoot::close);
    }
  }
}
