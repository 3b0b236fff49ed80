package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Maps the Arrow types file readers produce onto the engine's internal types (e.g. LargeUtf8 to
 * Utf8, Date(MILLI) to Date(DAY), any timestamp to Timestamp(MICROSECOND) without zone, unsigned
 * and 256-bit decimal integers to their signed/128-bit forms, dictionaries to plain values) and
 * converts vectors accordingly with loops over the raw buffers.
 */
public final class TypeNormalizer {

  private TypeNormalizer() {}

  /** The schema with every field normalized and all metadata dropped. */
  public static Schema normalize(Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (Field f : schema.getFields()) {
      fields.add(normalize(f));
    }
    return new Schema(fields);
  }

  /** The field with its type normalized and its metadata dropped. */
  public static Field normalize(Field field) {
    ArrowType type = normalize(field.getType());
    List<Field> children = new ArrayList<>();
    if (field.getDictionary() == null) {
      for (Field c : field.getChildren()) {
        children.add(normalize(c));
      }
    }
    if (type instanceof ArrowType.Map && children.size() == 1) {
      // Quiver names a map's parts entries/key/value whatever the file calls them.
      Field entries = children.get(0);
      if (entries.getChildren().size() == 2) {
        Field key = entries.getChildren().get(0);
        Field value = entries.getChildren().get(1);
        children =
            List.of(
                new Field(
                    "entries",
                    entries.getFieldType(),
                    List.of(
                        new Field("key", key.getFieldType(), key.getChildren()),
                        new Field("value", value.getFieldType(), value.getChildren()))));
      }
    }
    return new Field(
        field.getName(), new FieldType(field.isNullable(), type, null, null), children);
  }

  /** The internal type for {@code type}; itself when already internal or not convertible. */
  public static ArrowType normalize(ArrowType type) {
    return switch (type.getTypeID()) {
      case LargeUtf8 -> ArrowType.Utf8.INSTANCE;
      case Date -> new ArrowType.Date(DateUnit.DAY);
      case Timestamp -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
      case Time -> new ArrowType.Time(TimeUnit.MICROSECOND, 64);
      case LargeList -> ArrowType.List.INSTANCE;
      case Int -> {
        ArrowType.Int i = (ArrowType.Int) type;
        if (i.getIsSigned()) {
          yield type;
        }
        yield new ArrowType.Int(i.getBitWidth() <= 16 ? 32 : 64, true);
      }
      case FloatingPoint ->
          ((ArrowType.FloatingPoint) type).getPrecision() == FloatingPointPrecision.HALF
              ? new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)
              : type;
      case Decimal -> {
        ArrowType.Decimal d = (ArrowType.Decimal) type;
        yield new ArrowType.Decimal(d.getPrecision(), d.getScale(), 128);
      }
      default -> type;
    };
  }

  /** Checks that a file column can be represented; throws naming the column otherwise. */
  public static void checkSupported(Field field, String source) {
    if (field.getType() instanceof ArrowType.Decimal d && d.getPrecision() > 38) {
      throw new DataSourceException(
          source
              + ": column '"
              + field.getName()
              + "' is DECIMAL("
              + d.getPrecision()
              + ", "
              + d.getScale()
              + "); Quiver supports precision up to 38, cast it in the file's writer");
    }
  }

  /**
   * Returns {@code vector} converted to {@code target}'s type, closing {@code vector} when a new
   * vector is made; dictionary-encoded vectors are decoded through {@code dictionaries}.
   */
  public static FieldVector convert(
      FieldVector vector,
      Field target,
      DictionaryProvider dictionaries,
      BufferAllocator allocator) {
    if (vector.getField().getDictionary() != null) {
      Dictionary dictionary = dictionaries.lookup(vector.getField().getDictionary().getId());
      FieldVector decoded;
      try {
        decoded = (FieldVector) DictionaryEncoder.decode(vector, dictionary, allocator);
      } finally {
        vector.close();
      }
      return convert(decoded, target, dictionaries, allocator);
    }
    ArrowType from = vector.getField().getType();
    ArrowType to = target.getType();
    if (!vector.getField().getChildren().isEmpty() || !target.getChildren().isEmpty()) {
      return NestedVectors.convert(vector, target, allocator);
    }
    if (from.equals(to)) {
      return vector;
    }
    FieldVector out = target.createVector(allocator);
    try {
      int n = vector.getValueCount();
      switch (from.getTypeID()) {
        case LargeUtf8 -> largeUtf8ToUtf8((LargeVarCharVector) vector, (VarCharVector) out, n);
        case Date -> dateMillisToDays((BaseFixedWidthVector) vector, (DateDayVector) out, n);
        case Timestamp ->
            timestampToMicros(
                (BaseFixedWidthVector) vector,
                ((ArrowType.Timestamp) from).getUnit(),
                (BaseFixedWidthVector) out,
                n);
        case Int ->
            unsignedToSigned(
                (BaseFixedWidthVector) vector,
                ((ArrowType.Int) from).getBitWidth(),
                (BaseFixedWidthVector) out,
                ((ArrowType.Int) to).getBitWidth(),
                target.getName(),
                n);
        case Decimal ->
            decimal256To128(
                (BaseFixedWidthVector) vector, (DecimalVector) out, target.getName(), n);
        case FloatingPoint ->
            halfToDouble((BaseFixedWidthVector) vector, (BaseFixedWidthVector) out, n);
        case Time ->
            timeToMicros(
                (BaseFixedWidthVector) vector,
                ((ArrowType.Time) from).getUnit(),
                (BaseFixedWidthVector) out,
                n);
        default ->
            throw new DataSourceException(
                "Cannot convert column '" + target.getName() + "' from " + from + " to " + to);
      }
      out.setValueCount(n);
    } catch (RuntimeException e) {
      out.close();
      throw e;
    } finally {
      vector.close();
    }
    return out;
  }

  private static void copyValidity(FieldVector from, FieldVector to, int n) {
    ArrowBuf src = from.getValidityBuffer();
    ArrowBuf dst = to.getValidityBuffer();
    int bytes = BitVectorHelper.getValidityBufferSize(n);
    if (src == null || src.capacity() < bytes) {
      // No validity buffer means no nulls.
      for (int i = 0; i < n; i++) {
        BitVectorHelper.setBit(dst, i);
      }
    } else {
      dst.setBytes(0, src, 0, bytes);
    }
  }

  private static void largeUtf8ToUtf8(LargeVarCharVector from, VarCharVector to, int n) {
    long base = n == 0 ? 0 : from.getOffsetBuffer().getLong(0);
    long end = n == 0 ? 0 : from.getOffsetBuffer().getLong((long) n * 8);
    long bytes = end - base;
    if (bytes > Integer.MAX_VALUE) {
      throw new DataSourceException(
          "Column '"
              + from.getName()
              + "' holds "
              + bytes
              + " bytes of text in one batch; lower the batch size");
    }
    to.allocateNew(Math.max(bytes, 1), n);
    copyValidity(from, to, n);
    ArrowBuf srcOffsets = from.getOffsetBuffer();
    ArrowBuf dstOffsets = to.getOffsetBuffer();
    for (int i = 0; i <= n; i++) {
      dstOffsets.setInt((long) i * 4, (int) (srcOffsets.getLong((long) i * 8) - base));
    }
    to.getDataBuffer().setBytes(0, from.getDataBuffer(), base, bytes);
    to.setLastSet(n - 1);
  }

  private static void dateMillisToDays(BaseFixedWidthVector from, DateDayVector to, int n) {
    to.allocateNew(n);
    copyValidity(from, to, n);
    ArrowBuf src = from.getDataBuffer();
    ArrowBuf dst = to.getDataBuffer();
    for (int i = 0; i < n; i++) {
      dst.setInt((long) i * 4, (int) Math.floorDiv(src.getLong((long) i * 8), 86_400_000L));
    }
  }

  private static void timestampToMicros(
      BaseFixedWidthVector from, TimeUnit unit, BaseFixedWidthVector to, int n) {
    to.allocateNew(n);
    copyValidity(from, to, n);
    ArrowBuf src = from.getDataBuffer();
    ArrowBuf dst = to.getDataBuffer();
    for (int i = 0; i < n; i++) {
      long v = src.getLong((long) i * 8);
      long micros =
          switch (unit) {
            case NANOSECOND -> Math.floorDiv(v, 1000L);
            case MICROSECOND -> v;
            case MILLISECOND -> Math.multiplyExact(v, 1000L);
            case SECOND -> Math.multiplyExact(v, 1_000_000L);
          };
      dst.setLong((long) i * 8, micros);
    }
  }

  private static void timeToMicros(
      BaseFixedWidthVector from, TimeUnit unit, BaseFixedWidthVector to, int n) {
    to.allocateNew(n);
    copyValidity(from, to, n);
    ArrowBuf src = from.getDataBuffer();
    ArrowBuf dst = to.getDataBuffer();
    for (int i = 0; i < n; i++) {
      long micros =
          switch (unit) {
            case NANOSECOND -> Math.floorDiv(src.getLong((long) i * 8), 1000L);
            case MICROSECOND -> src.getLong((long) i * 8);
            case MILLISECOND -> src.getInt((long) i * 4) * 1000L;
            case SECOND -> src.getInt((long) i * 4) * 1_000_000L;
          };
      dst.setLong((long) i * 8, micros);
    }
  }

  private static void unsignedToSigned(
      BaseFixedWidthVector from,
      int fromBits,
      BaseFixedWidthVector to,
      int toBits,
      String name,
      int n) {
    to.allocateNew(n);
    copyValidity(from, to, n);
    ArrowBuf src = from.getDataBuffer();
    ArrowBuf dst = to.getDataBuffer();
    for (int i = 0; i < n; i++) {
      long v =
          switch (fromBits) {
            case 8 -> src.getByte(i) & 0xFFL;
            case 16 -> src.getShort((long) i * 2) & 0xFFFFL;
            case 32 -> src.getInt((long) i * 4) & 0xFFFF_FFFFL;
            default -> src.getLong((long) i * 8);
          };
      if (fromBits == 64 && v < 0 && !from.isNull(i)) {
        throw new DataSourceException(
            "Column '"
                + name
                + "' holds the unsigned value "
                + Long.toUnsignedString(v)
                + " which does not fit in BIGINT");
      }
      if (toBits == 32) {
        dst.setInt((long) i * 4, (int) v);
      } else {
        dst.setLong((long) i * 8, v);
      }
    }
  }

  private static void decimal256To128(
      BaseFixedWidthVector from, DecimalVector to, String name, int n) {
    to.allocateNew(n);
    copyValidity(from, to, n);
    ArrowBuf src = from.getDataBuffer();
    ArrowBuf dst = to.getDataBuffer();
    for (int i = 0; i < n; i++) {
      long lo = src.getLong((long) i * 32);
      long hi = src.getLong((long) i * 32 + 8);
      long sign = hi >> 63;
      if (!from.isNull(i)
          && (src.getLong((long) i * 32 + 16) != sign || src.getLong((long) i * 32 + 24) != sign)) {
        throw new DataSourceException("Column '" + name + "' holds a decimal wider than 38 digits");
      }
      dst.setLong((long) i * 16, lo);
      dst.setLong((long) i * 16 + 8, hi);
    }
  }

  private static void halfToDouble(BaseFixedWidthVector from, BaseFixedWidthVector to, int n) {
    to.allocateNew(n);
    copyValidity(from, to, n);
    ArrowBuf src = from.getDataBuffer();
    ArrowBuf dst = to.getDataBuffer();
    for (int i = 0; i < n; i++) {
      dst.setDouble(
          (long) i * 8, org.apache.arrow.memory.util.Float16.toFloat(src.getShort((long) i * 2)));
    }
  }
}
