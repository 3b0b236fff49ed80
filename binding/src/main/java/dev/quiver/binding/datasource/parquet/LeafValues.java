package dev.quiver.binding.datasource.parquet;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;

/**
 * Reads the values of one Arrow leaf vector straight from its buffers and hands them to a Parquet
 * column writer, converting units where Parquet has no equivalent (seconds, dates in milliseconds)
 * and decimals to their stored width. Bound to one batch's vector.
 */
@FunctionalInterface
interface LeafValues {
  long MILLIS_PER_DAY = 86_400_000L;

  /** Writes the value at {@code index} with the given levels. */
  void write(ColumnWriter w, int index, int rl, int dl);

  /** The writer of {@code vector}'s values as {@code kind}. */
  static LeafValues of(ValueKind kind, FieldVector vector) {
    ArrowBuf data = kind == ValueKind.NULL ? null : vector.getDataBuffer();
    return switch (kind) {
      case NULL ->
          (w, index, rl, dl) -> {
            throw new IllegalStateException("a null-typed column holds no values");
          };
      case BOOLEAN -> {
        BitVector bits = (BitVector) vector;
        yield (w, index, rl, dl) -> w.write(bits.get(index) != 0, rl, dl);
      }
      case INT8 -> (w, index, rl, dl) -> w.write((int) data.getByte(index), rl, dl);
      case UINT8 -> (w, index, rl, dl) -> w.write(data.getByte(index) & 0xFF, rl, dl);
      case INT16 -> (w, index, rl, dl) -> w.write((int) data.getShort((long) index * 2), rl, dl);
      case UINT16 ->
          (w, index, rl, dl) -> w.write(data.getShort((long) index * 2) & 0xFFFF, rl, dl);
      case INT32, DECIMAL_INT32 -> {
        // Decimals are 16 or 32 little-endian bytes; the low four hold an INT32-sized value.
        long width = kind == ValueKind.INT32 ? 4 : ((BaseFixedWidthVector) vector).getTypeWidth();
        yield (w, index, rl, dl) -> w.write(data.getInt(index * width), rl, dl);
      }
      case TIME_SECONDS ->
          (w, index, rl, dl) -> w.write(data.getInt((long) index * 4) * 1000, rl, dl);
      case DATE_MILLIS ->
          (w, index, rl, dl) ->
              w.write((int) Math.floorDiv(data.getLong((long) index * 8), MILLIS_PER_DAY), rl, dl);
      case INT64, DECIMAL_INT64 -> {
        long width = kind == ValueKind.INT64 ? 8 : ((BaseFixedWidthVector) vector).getTypeWidth();
        yield (w, index, rl, dl) -> w.write(data.getLong(index * width), rl, dl);
      }
      case TIMESTAMP_SECONDS ->
          (w, index, rl, dl) ->
              w.write(Math.multiplyExact(data.getLong((long) index * 8), 1000L), rl, dl);
      case FLOAT -> (w, index, rl, dl) -> w.write(data.getFloat((long) index * 4), rl, dl);
      case DOUBLE -> (w, index, rl, dl) -> w.write(data.getDouble((long) index * 8), rl, dl);
      case BINARY -> variable(vector.getOffsetBuffer(), data, 4);
      case LARGE_BINARY -> variable(vector.getOffsetBuffer(), data, 8);
      case FIXED, FLOAT16 -> fixed(data, ((BaseFixedWidthVector) vector).getTypeWidth());
      case DECIMAL_FIXED -> decimalBytes(vector, data);
    };
  }

  /** Bytes between offsets of {@code offsetWidth} bytes (4, or 8 for the large types). */
  private static LeafValues variable(ArrowBuf offsets, ArrowBuf data, int offsetWidth) {
    return new LeafValues() {
      // Reused for every value: the column writer copies what it keeps (dictionary, min, max).
      private byte[] scratch = new byte[64];

      @Override
      public void write(ColumnWriter w, int index, int rl, int dl) {
        long at = (long) index * offsetWidth;
        long start = offsetWidth == 4 ? offsets.getInt(at) : offsets.getLong(at);
        long end = offsetWidth == 4 ? offsets.getInt(at + 4) : offsets.getLong(at + 8);
        int length = Math.toIntExact(end - start);
        if (length > scratch.length) {
          scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        data.getBytes(start, scratch, 0, length);
        w.write(Binary.fromReusedByteArray(scratch, 0, length), rl, dl);
      }
    };
  }

  private static LeafValues fixed(ArrowBuf data, int width) {
    byte[] scratch = new byte[width];
    return (w, index, rl, dl) -> {
      data.getBytes((long) index * width, scratch, 0, width);
      w.write(Binary.fromReusedByteArray(scratch, 0, width), rl, dl);
    };
  }

  /**
   * Decimals above INT64 precision: Arrow holds 16 or 32 little-endian bytes, Parquet wants the
   * precision's width in big-endian two's complement (the dropped high bytes are sign extension).
   */
  private static LeafValues decimalBytes(FieldVector vector, ArrowBuf data) {
    int width = ((BaseFixedWidthVector) vector).getTypeWidth();
    int n =
        ParquetSchemaMapping.decimalBytes(
            ((ArrowType.Decimal) vector.getField().getType()).getPrecision());
    byte[] scratch = new byte[n];
    return (w, index, rl, dl) -> {
      long base = (long) index * width;
      for (int b = 0; b < n; b++) {
        scratch[n - 1 - b] = data.getByte(base + b);
      }
      w.write(Binary.fromReusedByteArray(scratch, 0, n), rl, dl);
    };
  }
}
