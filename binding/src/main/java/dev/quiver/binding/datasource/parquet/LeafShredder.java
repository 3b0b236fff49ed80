package dev.quiver.binding.datasource.parquet;

import dev.quiver.binding.datasource.parquet.LeafColumn.Step;
import dev.quiver.binding.errors.DataSourceException;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;
import org.apache.parquet.column.ColumnWriter;

/**
 * Turns the rows of one batch into the values and repetition/definition levels of one Parquet leaf
 * column (Dremel shredding): a null at some level is written as a null with the definition level
 * reached above it, an empty list likewise, and each list item after the first repeats at its
 * list's level. Top-level columns take a loop without levels to compute.
 */
final class LeafShredder {
  private final LeafColumn leaf;
  private final Step[] steps;
  private final FieldVector[] vectors;
  private final ArrowBuf[] offsets;
  private final ColumnWriter writer;
  private final LeafValues values;
  private final int maxDefinition;

  /** Binds {@code leaf} to {@code batch}'s vectors, writing to {@code writer}. */
  LeafShredder(LeafColumn leaf, VectorSchemaRoot batch, ColumnWriter writer) {
    this.leaf = leaf;
    List<Step> s = leaf.steps();
    this.steps = s.toArray(Step[]::new);
    this.vectors = new FieldVector[steps.length];
    this.offsets = new ArrowBuf[steps.length];
    this.writer = writer;
    this.maxDefinition = leaf.descriptor().getMaxDefinitionLevel();
    FieldVector v = batch.getVector(leaf.topLevel());
    for (int i = 0; i < steps.length; i++) {
      vectors[i] = v;
      switch (steps[i].kind()) {
        case STRUCT ->
            v = (FieldVector) ((NonNullableStructVector) v).getChildByOrdinal(steps[i].child());
        case LIST -> {
          offsets[i] = ((ListVector) v).getOffsetBuffer();
          v = ((ListVector) v).getDataVector();
        }
        case LARGE_LIST -> {
          offsets[i] = ((LargeListVector) v).getOffsetBuffer();
          v = ((LargeListVector) v).getDataVector();
        }
        case FIXED_SIZE_LIST -> v = ((FixedSizeListVector) v).getDataVector();
        case LEAF -> {}
      }
    }
    this.values = LeafValues.of(leaf.kind(), vectors[steps.length - 1]);
    if (!steps[0].nullable() && vectors[0].getNullCount() > 0) {
      // A REQUIRED column cannot hold a null; writing the slot's bytes would invent a value.
      throw new DataSourceException(
          "Cannot write column '"
              + leaf.arrowPath()
              + "' to Parquet: it is declared NOT NULL but holds nulls");
    }
  }

  /** Writes rows {@code from} (inclusive) to {@code to} (exclusive). */
  void write(int from, int to) {
    if (leaf.flat()) {
      if (leaf.kind() == ValueKind.NULL) {
        for (int r = from; r < to; r++) {
          writer.writeNull(0, 0);
        }
      } else if (maxDefinition == 0) {
        for (int r = from; r < to; r++) {
          values.write(writer, r, 0, 0);
        }
      } else {
        FieldVector v = vectors[0];
        for (int r = from; r < to; r++) {
          if (v.isNull(r)) {
            writer.writeNull(0, 0);
          } else {
            values.write(writer, r, 0, 1);
          }
        }
      }
      return;
    }
    for (int r = from; r < to; r++) {
      write(0, r, 0, 0);
    }
  }

  private void write(int step, int index, int rl, int dl) {
    Step s = steps[step];
    FieldVector v = vectors[step];
    if (s.nullable()) {
      if (v.isNull(index)) {
        writer.writeNull(rl, dl);
        return;
      }
      dl++;
    }
    switch (s.kind()) {
      case LEAF -> {
        if (leaf.kind() == ValueKind.NULL) {
          writer.writeNull(rl, dl - 1);
        } else {
          values.write(writer, index, rl, dl);
        }
      }
      case STRUCT -> write(step + 1, index, rl, dl);
      case LIST, LARGE_LIST, FIXED_SIZE_LIST -> {
        long start;
        long end;
        switch (s.kind()) {
          case LIST -> {
            start = offsets[step].getInt((long) index * 4);
            end = offsets[step].getInt((long) index * 4 + 4);
          }
          case LARGE_LIST -> {
            start = offsets[step].getLong((long) index * 8);
            end = offsets[step].getLong((long) index * 8 + 8);
          }
          default -> {
            int size = ((FixedSizeListVector) v).getListSize();
            start = (long) index * size;
            end = start + size;
          }
        }
        if (start == end) {
          writer.writeNull(rl, dl);
          return;
        }
        for (long i = start; i < end; i++) {
          write(step + 1, Math.toIntExact(i), i == start ? rl : s.repetition(), dl + 1);
        }
      }
    }
  }
}
