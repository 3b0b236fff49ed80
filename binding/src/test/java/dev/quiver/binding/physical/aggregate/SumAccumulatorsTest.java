package dev.quiver.binding.physical.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class SumAccumulatorsTest {
  private static final int SCALE = 2;
  private static final ArrowType DEC = new ArrowType.Decimal(38, SCALE, 128);
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  private static SumAccumulators.SumDecimalAcc acc(boolean avg) {
    List<Field> state =
        List.of(
            Accumulators.nullable("s[sum]", DEC),
            Accumulators.notNull("s[count]", Accumulators.INT64));
    ArrowType out = avg ? new ArrowType.Decimal(38, SCALE + 4, 128) : DEC;
    return new SumAccumulators.SumDecimalAcc(state, Accumulators.nullable("s", out), avg, SCALE);
  }

  /**
   * Decimal SUM and AVG against BigDecimal arithmetic, through batches that take the unmasked fast
   * path, batches with masked rows, sums that overflow a long part-way through a batch (the fast
   * path must hand over at that row, not skip or repeat it), values beyond 64 bits, and merges of
   * emitted states.
   */
  @Test
  void decimalSumsMatchExactArithmeticThroughOverflowAndMasks() {
    Random random = new Random(11);
    for (int trial = 0; trial < 30; trial++) {
      int groups = 1 + random.nextInt(6);
      SumDecimalCase sum = new SumDecimalCase(acc(false), groups);
      SumDecimalCase avg = new SumDecimalCase(acc(true), groups);
      int batches = 1 + random.nextInt(6);
      for (int b = 0; b < batches; b++) {
        int rows = 1 + random.nextInt(300);
        BigInteger[] values = new BigInteger[rows];
        int[] gids = new int[rows];
        boolean[] use = random.nextInt(3) == 0 ? new boolean[rows] : null;
        int kind = random.nextInt(4); // small values, near the long limits, beyond 64 bits, mixed
        for (int i = 0; i < rows; i++) {
          gids[i] = random.nextInt(groups);
          values[i] = value(random, kind == 3 ? random.nextInt(3) : kind);
          if (use != null) {
            use[i] = random.nextBoolean();
          }
        }
        try (DecimalVector v = decimals(values)) {
          sum.update(v, values, gids, rows, use);
          avg.update(v, values, gids, rows, use);
        }
      }
      sum.check(false);
      avg.check(true);
      sum.checkMerged(false);
    }
  }

  private static BigInteger value(Random random, int kind) {
    return switch (kind) {
      case 0 -> BigInteger.valueOf(random.nextInt(2_000_001) - 1_000_000);
      case 1 ->
          random.nextBoolean()
              ? BigInteger.valueOf(Long.MAX_VALUE - random.nextInt(1000))
              : BigInteger.valueOf(Long.MIN_VALUE + random.nextInt(1000));
      default ->
          BigInteger.ONE
              .shiftLeft(64 + random.nextInt(40))
              .multiply(BigInteger.valueOf(random.nextBoolean() ? 1 : -1))
              .add(BigInteger.valueOf(random.nextInt()));
    };
  }

  private DecimalVector decimals(BigInteger[] values) {
    DecimalVector v = new DecimalVector(Accumulators.nullable("x", DEC), allocator);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      v.set(i, new BigDecimal(values[i], SCALE));
    }
    v.setValueCount(values.length);
    return v;
  }

  /** One accumulator and the exact expected sums and counts per group. */
  private final class SumDecimalCase {
    final SumAccumulators.SumDecimalAcc acc;
    final BigInteger[] sums;
    final long[] counts;

    SumDecimalCase(SumAccumulators.SumDecimalAcc acc, int groups) {
      this.acc = acc;
      this.sums = new BigInteger[groups];
      this.counts = new long[groups];
      java.util.Arrays.fill(sums, BigInteger.ZERO);
      acc.ensureCapacity(groups);
    }

    void update(DecimalVector v, BigInteger[] values, int[] gids, int rows, boolean[] use) {
      acc.update(new FieldVector[] {v}, gids, rows, use);
      for (int i = 0; i < rows; i++) {
        if (use == null || use[i]) {
          sums[gids[i]] = sums[gids[i]].add(values[i]);
          counts[gids[i]]++;
        }
      }
    }

    private int[] all() {
      int[] ids = new int[sums.length];
      for (int g = 0; g < ids.length; g++) {
        ids[g] = g;
      }
      return ids;
    }

    void check(boolean avg) {
      try (FieldVector out = acc.emitFinal(all(), sums.length, allocator)) {
        assertFinal(out, avg);
      }
    }

    private void assertFinal(FieldVector out, boolean avg) {
      for (int g = 0; g < sums.length; g++) {
        if (counts[g] == 0) {
          assertThat(out.isNull(g)).isTrue();
          continue;
        }
        BigDecimal exact = new BigDecimal(sums[g], SCALE);
        BigDecimal expected =
            avg
                ? exact.divide(BigDecimal.valueOf(counts[g]), SCALE + 4, RoundingMode.HALF_UP)
                : exact;
        assertThat((BigDecimal) out.getObject(g)).as("group %d", g).isEqualByComparingTo(expected);
      }
    }

    /** The emitted state merged twice into a fresh accumulator sums to twice the values. */
    void checkMerged(boolean avg) {
      SumAccumulators.SumDecimalAcc merged = acc(avg);
      merged.ensureCapacity(sums.length);
      List<FieldVector> state = acc.emitState(all(), sums.length, allocator);
      try {
        FieldVector[] st = state.toArray(new FieldVector[0]);
        merged.merge(st, all(), sums.length);
        merged.merge(st, all(), sums.length);
      } finally {
        state.forEach(FieldVector::close);
      }
      for (int g = 0; g < sums.length; g++) {
        sums[g] = sums[g].shiftLeft(1);
        counts[g] *= 2;
      }
      try (FieldVector out = merged.emitFinal(all(), sums.length, allocator)) {
        assertFinal(out, avg);
      }
    }
  }
}
