package dev.quiver.binding.physical.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class TakeRunsTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  @Test
  void copiesTheSameRowsAsTakeForRandomSelectionsWithAndWithoutNulls() {
    Random random = new Random(16);
    for (int trial = 0; trial < 300; trial++) {
      int rows = 1 + random.nextInt(trial < 50 ? 40 : 3000);
      boolean nulls = trial % 2 == 0;
      try (VectorSchemaRoot batch = batch(rows, nulls, random)) {
        // Dense selections with runs of random lengths, sometimes every row, sometimes one.
        double keep = random.nextDouble();
        int[] selection = new int[rows];
        int count = 0;
        boolean in = random.nextBoolean();
        for (int r = 0; r < rows; r++) {
          if (random.nextInt(20) == 0) {
            in = random.nextDouble() < keep;
          }
          if (in) {
            selection[count++] = r;
          }
        }
        try (VectorSchemaRoot expected = Take.take(batch, selection, count, allocator);
            VectorSchemaRoot actual = TakeRuns.take(batch, selection, count, allocator)) {
          assertThat(actual.getRowCount()).isEqualTo(count);
          for (int c = 0; c < batch.getFieldVectors().size(); c++) {
            FieldVector e = expected.getVector(c);
            FieldVector a = actual.getVector(c);
            assertThat(a.getNullCount()).as("nulls of column %d", c).isEqualTo(e.getNullCount());
            for (int i = 0; i < count; i++) {
              assertThat(a.getObject(i)).as("row %d of column %d", i, c).isEqualTo(e.getObject(i));
            }
          }
        }
      }
    }
  }

  @Test
  void countsRunsAndPrefersThemOnlyWhenTheyAreLong() {
    assertThat(TakeRuns.runs(new int[] {0, 1, 2, 5, 6, 9}, 6)).isEqualTo(3);
    assertThat(TakeRuns.runs(new int[0], 0)).isZero();
    assertThat(TakeRuns.worthIt(6, 3)).isFalse();
    assertThat(TakeRuns.worthIt(400, 8)).isTrue();
  }

  @Test
  void refusesASelectionOutsideTheBatch() {
    try (VectorSchemaRoot batch = batch(10, false, new Random(1))) {
      assertThatThrownBy(() -> TakeRuns.take(batch, new int[] {3, 4, 10}, 3, allocator))
          .isInstanceOf(IndexOutOfBoundsException.class)
          .hasMessageContaining("of 10 rows");
    }
  }

  @Test
  void setBitsSetsExactlyTheRange() {
    Random random = new Random(7);
    try (ArrowBuf buf = allocator.buffer(64)) {
      for (int trial = 0; trial < 2000; trial++) {
        buf.setZero(0, 64);
        int from = random.nextInt(300);
        int n = random.nextInt(512 - from);
        Raw.setBits(buf.memoryAddress(), from, n);
        for (int i = 0; i < 512; i++) {
          boolean set = ((buf.getByte(i >>> 3) >> (i & 7)) & 1) != 0;
          assertThat(set)
              .as("bit %d of [%d, %d)", i, from, from + n)
              .isEqualTo(i >= from && i < from + n);
        }
      }
    }
  }

  private VectorSchemaRoot batch(int rows, boolean nulls, Random random) {
    BigIntVector longs = new BigIntVector("l", allocator);
    IntVector ints = new IntVector("i", allocator);
    DecimalVector decimals = new DecimalVector("d", allocator, 15, 2);
    VarCharVector strings = new VarCharVector("s", allocator);
    BitVector bools = new BitVector("b", allocator);
    longs.allocateNew(rows);
    ints.allocateNew(rows);
    decimals.allocateNew(rows);
    strings.allocateNew(rows);
    bools.allocateNew(rows);
    for (int r = 0; r < rows; r++) {
      if (nulls && random.nextInt(5) == 0) {
        longs.setNull(r);
        ints.setNull(r);
        decimals.setNull(r);
        strings.setNull(r);
        bools.setNull(r);
        continue;
      }
      longs.set(r, random.nextLong());
      ints.set(r, random.nextInt());
      decimals.set(r, BigDecimal.valueOf(random.nextInt(2_000_000) - 1_000_000, 2));
      byte[] text = ("v" + "x".repeat(random.nextInt(30)) + r).getBytes(StandardCharsets.UTF_8);
      strings.setSafe(r, text);
      bools.set(r, random.nextInt(2));
    }
    for (FieldVector v : List.<FieldVector>of(longs, ints, decimals, strings, bools)) {
      v.setValueCount(rows);
    }
    return new VectorSchemaRoot(List.of(longs, ints, decimals, strings, bools));
  }
}
