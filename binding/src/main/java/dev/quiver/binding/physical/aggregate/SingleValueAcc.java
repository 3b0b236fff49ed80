package dev.quiver.binding.physical.aggregate;

import static dev.quiver.binding.physical.aggregate.GroupStates.gather;
import static dev.quiver.binding.physical.aggregate.GroupStates.grow;
import static dev.quiver.binding.physical.aggregate.GroupStates.validMask;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.expr.SingleRowExpr;
import dev.quiver.binding.physical.expr.Vectors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * SINGLE_VALUE: any value of the group (an ANY_VALUE accumulator) and its row count, NULL values
 * included, failing as soon as a group holds a second row. It gets every row the filter keeps, NULL
 * arguments too, and passes the non-NULL ones on.
 */
final class SingleValueAcc implements Accumulator {
  private final Accumulator value;
  private final Field rowsField;
  private final AggregateCall call;
  private long[] rows = new long[16];

  SingleValueAcc(Accumulator value, Field rowsField, AggregateCall call) {
    this.value = value;
    this.rowsField = rowsField;
    this.call = call;
  }

  private QuiverException moreThanOneRow() {
    return SingleRowExpr.moreThanOneRow(call.name());
  }

  @Override
  public void ensureCapacity(int groups) {
    value.ensureCapacity(groups);
    if (groups > rows.length) {
      rows = Arrays.copyOf(rows, grow(rows.length, groups));
    }
  }

  @Override
  public void update(FieldVector[] args, int[] gids, int n, boolean[] use) {
    for (int i = 0; i < n; i++) {
      if ((use == null || use[i]) && ++rows[gids[i]] > 1) {
        throw moreThanOneRow();
      }
    }
    boolean[] valid = validMask(args[0], n);
    if (valid != null && use != null) {
      for (int i = 0; i < n; i++) {
        valid[i] &= use[i];
      }
    }
    value.update(args, gids, n, valid != null ? valid : use);
  }

  @Override
  public void merge(FieldVector[] st, int[] gids, int n) {
    long[] counts = Vectors.longs(st[1], n, null);
    for (int i = 0; i < n; i++) {
      if ((rows[gids[i]] += counts[i]) > 1) {
        throw moreThanOneRow();
      }
    }
    value.merge(new FieldVector[] {st[0]}, gids, n);
  }

  @Override
  public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
    List<FieldVector> out = new ArrayList<>(value.emitState(gids, n, a));
    out.add(Vectors.fromLongs(rowsField, gather(rows, gids, n), null, n, a));
    return out;
  }

  @Override
  public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
    return value.emitFinal(gids, n, a);
  }

  @Override
  public long estimatedBytes() {
    return value.estimatedBytes() + (long) rows.length * 8;
  }

  @Override
  public void reset() {
    value.reset();
    rows = new long[16];
  }
}
