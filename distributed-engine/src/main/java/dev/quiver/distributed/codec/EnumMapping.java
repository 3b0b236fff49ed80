package dev.quiver.distributed.codec;

import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;

/**
 * Maps Java enum constants to the values of a protobuf enum by name: proto value {@code
 * PREFIX_NAME} stands for Java constant {@code NAME}, where {@code PREFIX_UNSPECIFIED} is value 0.
 */
final class EnumMapping {
  private EnumMapping() {}

  /** The proto number of {@code value}. */
  static int toNumber(EnumDescriptor proto, Enum<?> value) {
    EnumValueDescriptor v = proto.findValueByName(prefix(proto) + value.name());
    if (v == null) {
      throw new PlanCodecException(
          "The plan codec has no "
              + proto.getName()
              + " value for "
              + value.getDeclaringClass().getSimpleName()
              + "."
              + value.name()
              + "; add it to plan.proto");
    }
    return v.getNumber();
  }

  /** The Java constant of proto number {@code number}. */
  static <E extends Enum<E>> E fromNumber(EnumDescriptor proto, int number, Class<E> type) {
    EnumValueDescriptor v = proto.findValueByNumber(number);
    String prefix = prefix(proto);
    if (v == null || number == 0 || !v.getName().startsWith(prefix)) {
      throw new PlanCodecException(
          "unknown "
              + type.getSimpleName()
              + " value "
              + number
              + " in the plan (a newer client?)");
    }
    try {
      return Enum.valueOf(type, v.getName().substring(prefix.length()));
    } catch (IllegalArgumentException e) {
      throw new PlanCodecException(
          "unknown " + type.getSimpleName() + " " + v.getName() + " in the plan (a newer client?)");
    }
  }

  private static String prefix(EnumDescriptor proto) {
    String zero = proto.findValueByNumber(0).getName();
    return zero.substring(0, zero.length() - "UNSPECIFIED".length());
  }
}
