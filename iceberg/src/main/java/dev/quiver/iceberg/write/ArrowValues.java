package dev.quiver.iceberg.write;

import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;

/**
 * Values of the written Arrow vectors (in {@link TableSchemas#fileSchema} form) in Iceberg's
 * internal representation: days for dates, microseconds for times and timestamps, {@code
 * CharSequence} for strings; what partition transforms and column bounds take.
 */
final class ArrowValues {
  private ArrowValues() {}

  /**
   * The value at {@code row} of {@code v}, a column of Iceberg type {@code type}; null for null.
   */
  static Object get(FieldVector v, Type type, int row) {
    if (v.isNull(row)) {
      return null;
    }
    return switch (type.typeId()) {
      case BOOLEAN -> ((BitVector) v).get(row) == 1;
      case INTEGER -> ((IntVector) v).get(row);
      case LONG -> ((BigIntVector) v).get(row);
      // Before conversion to the file's types, a float column holds the engine's doubles.
      case FLOAT -> v instanceof Float4Vector f ? f.get(row) : (float) ((Float8Vector) v).get(row);
      case DOUBLE -> ((Float8Vector) v).get(row);
      case DECIMAL -> ((DecimalVector) v).getObject(row);
      case DATE -> ((DateDayVector) v).get(row);
      case TIME -> ((TimeMicroVector) v).get(row);
      case TIMESTAMP -> ((TimeStampVector) v).get(row);
      case STRING -> new String(((VarCharVector) v).get(row), StandardCharsets.UTF_8);
      default -> throw new IllegalStateException("Unexpected written type " + type);
    };
  }

  /** One row of a batch as an Iceberg struct, for partition keys. */
  static final class Row implements StructLike {
    private final FieldVector[] vectors;
    private final Type[] types;
    private int row;

    Row(FieldVector[] vectors, Type[] types) {
      this.vectors = vectors;
      this.types = types;
    }

    Row at(int r) {
      this.row = r;
      return this;
    }

    @Override
    public int size() {
      return vectors.length;
    }

    @Override
    public <T> T get(int pos, Class<T> javaClass) {
      return javaClass.cast(ArrowValues.get(vectors[pos], types[pos], row));
    }

    @Override
    public <T> void set(int pos, T value) {
      throw new UnsupportedOperationException("Rows of written batches are read-only");
    }
  }
}
