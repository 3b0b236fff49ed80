package dev.quiver.binding.physical.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class GroupTableTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  /**
   * Enough distinct two-column keys (with NULLs) that 32-bit hashes collide (about 100 pairs among
   * 1.2 million keys): each key must keep one group id, and distinct keys distinct ids, across
   * batches, masks and the table's growth.
   */
  @Test
  void multiColumnKeysKeepOneGroupEachThroughHashCollisions() {
    Field a = new Field("a", FieldType.nullable(new ArrowType.Int(64, true)), null);
    Field b = new Field("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
    GroupTable table = new GroupTable(List.of(a, b));
    Map<List<Object>, Integer> ids = new HashMap<>();
    Random random = new Random(42);
    int batch = 8192;
    int[] out = new int[batch];
    boolean[] mask = new boolean[batch];
    for (int round = 0; round < 160; round++) {
      try (BigIntVector longs = new BigIntVector(a, allocator);
          VarCharVector strings = new VarCharVector(b, allocator)) {
        longs.allocateNew(batch);
        strings.allocateNew(batch);
        List<List<Object>> keys = new ArrayList<>(batch);
        for (int i = 0; i < batch; i++) {
          // Fresh keys early on, then mostly repeats of earlier ones.
          long x = random.nextInt(round < 150 ? 1_200_000 : 5000);
          String s = x % 97 == 0 ? null : "k" + (x % 7);
          Long l = x % 89 == 0 ? null : x / 7;
          if (l == null) {
            longs.setNull(i);
          } else {
            longs.set(i, l);
          }
          if (s == null) {
            strings.setNull(i);
          } else {
            strings.setSafe(i, s.getBytes(StandardCharsets.UTF_8));
          }
          java.util.Arrays.asList(l, s);
          keys.add(java.util.Arrays.asList(l, s));
          mask[i] = random.nextInt(10) != 0;
        }
        longs.setValueCount(batch);
        strings.setValueCount(batch);
        table.findOrInsert(List.<FieldVector>of(longs, strings), batch, mask, out);
        for (int i = 0; i < batch; i++) {
          if (!mask[i]) {
            assertThat(out[i]).isEqualTo(-1);
            continue;
          }
          Integer known = ids.putIfAbsent(keys.get(i), out[i]);
          assertThat(known == null ? out[i] : known)
              .as("group of key %s", keys.get(i))
              .isEqualTo(out[i]);
        }
      }
    }
    assertThat(table.size()).isEqualTo(ids.size());
    assertThat(new java.util.HashSet<>(ids.values())).hasSize(ids.size());
  }
}
