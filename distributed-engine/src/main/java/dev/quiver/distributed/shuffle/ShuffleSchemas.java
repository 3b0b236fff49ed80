package dev.quiver.distributed.shuffle;

import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Checks a consumer applies to the partitions it reads, however they are fetched. */
public final class ShuffleSchemas {
  private ShuffleSchemas() {}

  /**
   * Whether a producer's schema has the consumer's column types, in order (names and nullability
   * may differ: the consumer's schema is the one it declares).
   */
  public static boolean sameColumnTypes(Schema produced, Schema expected) {
    List<Field> got = produced.getFields();
    List<Field> want = expected.getFields();
    if (got.size() != want.size()) {
      return false;
    }
    for (int i = 0; i < want.size(); i++) {
      if (!want.get(i).getType().equals(got.get(i).getType())) {
        return false;
      }
    }
    return true;
  }
}
