package dev.quiver.distributed.codec;

import dev.quiver.distributed.proto.LocalDateTimeValue;
import dev.quiver.distributed.proto.ScalarValue;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/** Plain Java values (the binding's literal convention) to and from {@link ScalarValue}. */
final class ScalarValues {
  private ScalarValues() {}

  /** Encodes {@code value}; {@code where} names its place for the error message. */
  static ScalarValue encode(Object value, String where) {
    ScalarValue.Builder b = ScalarValue.newBuilder();
    if (value == null) {
      return b.build();
    } else if (value instanceof Boolean v) {
      b.setBoolValue(v);
    } else if (value instanceof Long v) {
      b.setInt64Value(v);
    } else if (value instanceof Integer v) {
      b.setInt32Value(v);
    } else if (value instanceof Short v) {
      b.setInt16Value(v);
    } else if (value instanceof Byte v) {
      b.setInt8Value(v);
    } else if (value instanceof Double v) {
      b.setFloat64Value(v);
    } else if (value instanceof Float v) {
      b.setFloat32Value(v);
    } else if (value instanceof BigDecimal v) {
      b.setDecimalValue(v.toString());
    } else if (value instanceof String v) {
      b.setStringValue(v);
    } else if (value instanceof LocalDate v) {
      b.setDateDays(v.toEpochDay());
    } else if (value instanceof LocalDateTime v) {
      b.setLocalDateTime(
          LocalDateTimeValue.newBuilder()
              .setEpochSecond(v.toEpochSecond(ZoneOffset.UTC))
              .setNano(v.getNano()));
    } else {
      throw new PlanCodecException(
          "Cannot encode the value "
              + value
              + " of "
              + where
              + ": values of class "
              + value.getClass().getName()
              + " have no plan encoding");
    }
    return b.build();
  }

  /** Decodes a value written by {@link #encode}. */
  static Object decode(ScalarValue v) {
    return switch (v.getValueCase()) {
      case VALUE_NOT_SET -> {
        if (!v.getUnknownFields().asMap().isEmpty()) {
          throw new PlanCodecException(
              "unknown kind of literal value (fields "
                  + v.getUnknownFields().asMap().keySet()
                  + ") in the plan (a newer client?)");
        }
        yield null;
      }
      case BOOL_VALUE -> v.getBoolValue();
      case INT64_VALUE -> v.getInt64Value();
      case INT32_VALUE -> v.getInt32Value();
      case INT16_VALUE -> (short) v.getInt16Value();
      case INT8_VALUE -> (byte) v.getInt8Value();
      case FLOAT64_VALUE -> v.getFloat64Value();
      case FLOAT32_VALUE -> v.getFloat32Value();
      case DECIMAL_VALUE -> new BigDecimal(v.getDecimalValue());
      case STRING_VALUE -> v.getStringValue();
      case DATE_DAYS -> LocalDate.ofEpochDay(v.getDateDays());
      case LOCAL_DATE_TIME ->
          LocalDateTime.ofEpochSecond(
              v.getLocalDateTime().getEpochSecond(),
              v.getLocalDateTime().getNano(),
              ZoneOffset.UTC);
    };
  }
}
