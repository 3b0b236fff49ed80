package dev.quiver.binding.physical.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.physical.kernel.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.DateUnit;
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

  private static final Field STR_A = utf8("a");
  private static final Field STR_B = utf8("b");

  private static Field utf8(String name) {
    return new Field(name, FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
  }

  /** A nullable vector of {@code field}'s type (utf8, int32, int64, bool, date) from values. */
  private FieldVector vector(Field field, List<Object> values) {
    FieldVector v = field.createVector(allocator);
    v.setInitialCapacity(values.size());
    v.allocateNew();
    for (int i = 0; i < values.size(); i++) {
      Object x = values.get(i);
      if (x == null) {
        v.setNull(i);
      } else if (v instanceof VarCharVector s) {
        s.setSafe(i, ((String) x).getBytes(StandardCharsets.ISO_8859_1));
      } else if (v instanceof IntVector n) {
        n.setSafe(i, (Integer) x);
      } else if (v instanceof BigIntVector n) {
        n.setSafe(i, (Long) x);
      } else if (v instanceof BitVector b) {
        b.setSafe(i, (Boolean) x ? 1 : 0);
      } else if (v instanceof DateDayVector d) {
        d.setSafe(i, (Integer) x);
      } else {
        throw new IllegalArgumentException(field.toString());
      }
    }
    v.setValueCount(values.size());
    return v;
  }

  /** The packed key of each row (single batch), in row order. */
  private long[] pack(KeyPacker packer, List<Field> fields, List<List<Object>> rows) {
    List<FieldVector> cols = new ArrayList<>();
    try {
      for (int c = 0; c < fields.size(); c++) {
        List<Object> col = new ArrayList<>();
        for (List<Object> r : rows) {
          col.add(r.get(c));
        }
        cols.add(vector(fields.get(c), col));
      }
      long[] out = new long[rows.size()];
      packer.pack(cols, rows.size(), new KeyPacker.Scratch(), out);
      return out;
    } finally {
      cols.forEach(FieldVector::close);
    }
  }

  /**
   * The packing must be injective: distinct keys that pack get distinct longs, none negative (the
   * UNPACKABLE marker). The values are chosen to break a careless encoding: strings differing only
   * in length ("a" vs "a\0"), NULL vs empty vs "\0", bytes 0xFF (sign extension), the slot's
   * maximum length, NULL vs 0 vs -1 integers and NULL vs false booleans.
   */
  @Test
  void packedKeysAreInjective() {
    Field n = new Field("n", FieldType.nullable(new ArrowType.Int(32, true)), null);
    Field f = new Field("f", FieldType.nullable(ArrowType.Bool.INSTANCE), null);
    List<Field> fields = List.of(STR_A, n, f);
    KeyPacker packer = KeyPacker.of(fields);
    assertThat(packer).isNotNull();
    assertThat(packer.bits()).isLessThanOrEqualTo(63);
    List<String> strings =
        java.util.Arrays.asList(
            null,
            "",
            "\0",
            "\0\0",
            "a",
            "a\0",
            "\0a",
            "\u00ff",
            "\u00ff\u00ff",
            "ab",
            "ba",
            "abc",
            "abcdef",
            "abcdefg");
    List<Integer> ints =
        java.util.Arrays.asList(null, 0, -1, 1, Integer.MIN_VALUE, Integer.MAX_VALUE, 255, -256);
    List<Boolean> bools = java.util.Arrays.asList(null, false, true);
    List<List<Object>> rows = new ArrayList<>();
    for (String s : strings) {
      for (Integer i : ints) {
        for (Boolean b : bools) {
          rows.add(java.util.Arrays.asList(s, i, b));
        }
      }
    }
    long[] packed = pack(packer, fields, rows);
    Map<Long, List<Object>> seen = new HashMap<>();
    int fit = 0;
    // The string column gets the 27 bits an int and a boolean leave: 3 bytes fit.
    for (int r = 0; r < rows.size(); r++) {
      String s = (String) rows.get(r).get(0);
      if (s != null && s.length() > 3) {
        assertThat(packed[r]).as("row %s", rows.get(r)).isEqualTo(KeyPacker.UNPACKABLE);
        continue;
      }
      fit++;
      assertThat(packed[r]).as("row %s", rows.get(r)).isNotNegative();
      List<Object> other = seen.put(packed[r], rows.get(r));
      assertThat(other).as("%s and %s pack alike", other, rows.get(r)).isNull();
    }
    assertThat(fit).isEqualTo(12 * ints.size() * bools.size());
  }

  /** Wider integers share the bits left over; a value that does not fit its slot does not pack. */
  @Test
  void wideIntegersPackWhenTheyFitTheirShare() {
    Field l = new Field("l", FieldType.nullable(new ArrowType.Int(64, true)), null);
    Field d = new Field("d", FieldType.nullable(new ArrowType.Date(DateUnit.DAY)), null);
    List<Field> fields = List.of(l, d);
    KeyPacker packer = KeyPacker.of(fields);
    assertThat(packer).isNotNull(); // the date takes 33 bits, the long 29 + a null bit
    long max = (1L << 28) - 1;
    List<List<Object>> rows =
        List.of(
            java.util.Arrays.asList(max, 1),
            java.util.Arrays.asList(-max - 1, 1),
            java.util.Arrays.asList(max + 1, 1),
            java.util.Arrays.asList(-max - 2, 1),
            java.util.Arrays.asList(null, 1),
            java.util.Arrays.asList(0L, null),
            java.util.Arrays.asList(0L, -1));
    long[] p = pack(packer, fields, rows);
    assertThat(p[2]).isEqualTo(KeyPacker.UNPACKABLE);
    assertThat(p[3]).isEqualTo(KeyPacker.UNPACKABLE);
    assertThat(new java.util.HashSet<>(List.of(p[0], p[1], p[4], p[5], p[6]))).hasSize(5);
    // Floating point and decimal keys, or too many wide columns, are not packed.
    Field x =
        new Field(
            "x",
            FieldType.nullable(
                new ArrowType.FloatingPoint(
                    org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)),
            null);
    assertThat(KeyPacker.of(List.of(STR_A, x))).isNull();
    assertThat(KeyPacker.of(List.of(d, f(), l))).isNotNull();
    assertThat(KeyPacker.of(List.of(d, d))).isNull(); // 66 bits
    assertThat(KeyPacker.of(List.of(STR_A, STR_A, STR_A, STR_A, STR_A, STR_A))).isNull();
  }

  /**
   * Groups found through packed keys and through the column-hash path must be the same groups: a
   * key first inserted by a batch that also holds unpackable rows is found by later packed batches,
   * and a key inserted by a packed batch is found by rows of a batch that does not pack. Each
   * group's emitted key must be the key that maps to it.
   */
  @Test
  void packedAndUnpackedBatchesAgreeOnGroups() {
    Field n = new Field("n", FieldType.nullable(new ArrowType.Int(32, true)), null);
    Field f = new Field("f", FieldType.nullable(ArrowType.Bool.INSTANCE), null);
    Field d = new Field("d", FieldType.nullable(new ArrowType.Date(DateUnit.DAY)), null);
    for (List<Field> fields :
        List.of(
            List.of(STR_A, STR_B), // q01's shape: 3 bytes per string
            List.of(STR_A), // 6 bytes
            List.of(n, STR_A, f),
            List.of(d, f, STR_B))) {
      GroupTable table = new GroupTable(fields);
      assertThat(table.packsKeys()).isTrue();
      Map<List<Object>, Integer> ids = new HashMap<>();
      Random random = new Random(7);
      for (int round = 0; round < 40; round++) {
        // Alternate packed-only batches, batches mixing long strings in, and masked batches.
        boolean longStrings = round % 3 == 1;
        int rows = 1 + random.nextInt(round % 5 == 0 ? 3 : 2000);
        List<List<Object>> keys = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
          List<Object> k = new ArrayList<>();
          for (Field field : fields) {
            k.add(randomValue(field, random, longStrings));
          }
          keys.add(k);
        }
        boolean[] mask = null;
        if (round % 4 == 3) {
          mask = new boolean[rows];
          for (int i = 0; i < rows; i++) {
            mask[i] = random.nextBoolean();
          }
        }
        int[] out = findOrInsert(table, fields, keys, mask);
        for (int i = 0; i < rows; i++) {
          if (mask != null && !mask[i]) {
            assertThat(out[i]).isEqualTo(-1);
            continue;
          }
          Integer known = ids.putIfAbsent(keys.get(i), out[i]);
          assertThat(known == null ? out[i] : known)
              .as("group of key %s in round %d of %s", keys.get(i), round, fields)
              .isEqualTo(out[i]);
        }
      }
      assertThat(table.size()).isEqualTo(ids.size());
      assertEmittedKeys(table, fields, ids);
    }
  }

  /** A key inserted through the column-hash path (its batch has a long string) is found packed. */
  @Test
  void keyInsertedByAnUnpackedBatchIsFoundByAPackedOne() {
    List<Field> fields = List.of(STR_A, STR_B);
    GroupTable table = new GroupTable(fields);
    int[] first =
        findOrInsert(
            table,
            fields,
            List.of(List.of("A", "F"), List.of("longer", "x"), List.of("", "F")),
            null);
    int[] second =
        findOrInsert(
            table, fields, List.of(List.of("", "F"), List.of("A", "F"), List.of("A", "")), null);
    int[] third = findOrInsert(table, fields, List.of(List.of("longer", "x")), null);
    assertThat(second[0]).isEqualTo(first[2]);
    assertThat(second[1]).isEqualTo(first[0]);
    assertThat(second[2]).isEqualTo(3);
    assertThat(third[0]).isEqualTo(first[1]);
    assertThat(table.size()).isEqualTo(4);
  }

  private int[] findOrInsert(
      GroupTable table, List<Field> fields, List<List<Object>> keys, boolean[] mask) {
    List<FieldVector> cols = new ArrayList<>();
    try {
      for (int c = 0; c < fields.size(); c++) {
        List<Object> col = new ArrayList<>();
        for (List<Object> r : keys) {
          col.add(r.get(c));
        }
        cols.add(vector(fields.get(c), col));
      }
      int[] out = new int[keys.size()];
      table.findOrInsert(cols, keys.size(), mask, out);
      return out;
    } finally {
      cols.forEach(FieldVector::close);
    }
  }

  private static Field f() {
    return new Field("f", FieldType.nullable(ArrowType.Bool.INSTANCE), null);
  }

  private static Object randomValue(Field field, Random random, boolean longStrings) {
    if (random.nextInt(8) == 0) {
      return null;
    }
    ArrowType t = field.getType();
    if (t instanceof ArrowType.Utf8) {
      int max = longStrings ? 9 : 3;
      int len = random.nextInt(max + 1);
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < len; i++) {
        b.append("\0a\u00ff".charAt(random.nextInt(3)));
      }
      return b.toString();
    }
    if (t instanceof ArrowType.Bool) {
      return random.nextBoolean();
    }
    if (t instanceof ArrowType.Date) {
      return random.nextInt(5) - 2;
    }
    return random.nextBoolean()
        ? random.nextInt(4) - 2
        : random.nextBoolean() ? Integer.MIN_VALUE : Integer.MAX_VALUE;
  }

  private void assertEmittedKeys(
      GroupTable table, List<Field> fields, Map<List<Object>, Integer> ids) {
    int[] all = new int[table.size()];
    for (int g = 0; g < all.length; g++) {
      all[g] = g;
    }
    List<List<Object>> emitted = new ArrayList<>();
    for (int g = 0; g < all.length; g++) {
      emitted.add(new ArrayList<>());
    }
    for (int c = 0; c < fields.size(); c++) {
      try (FieldVector v = table.emitKey(c, all, all.length, allocator)) {
        for (int g = 0; g < all.length; g++) {
          Object o = v.getObject(g);
          if (o instanceof org.apache.arrow.vector.util.Text text) {
            o = new String(text.copyBytes(), StandardCharsets.ISO_8859_1);
          } else if (o instanceof java.time.LocalDateTime) {
            o = ((DateDayVector) v).get(g);
          }
          emitted.get(g).add(o);
        }
      }
    }
    for (Map.Entry<List<Object>, Integer> e : ids.entrySet()) {
      assertThat(emitted.get(e.getValue())).isEqualTo(e.getKey());
    }
  }

  /**
   * One integer key skips the probe for a repeated value, yet each group keeps the column hash
   * every other path stores (spill runs are sorted and merged by it), through runs of a repeated
   * value.
   */
  @Test
  void singleIntegerKeysKeepTheColumnHash() {
    Field l = new Field("l", FieldType.nullable(new ArrowType.Int(64, true)), null);
    GroupTable table = new GroupTable(List.of(l));
    assertThat(table.packsKeys()).isFalse();
    List<List<Object>> keys = new ArrayList<>();
    Random random = new Random(3);
    while (keys.size() < 5000) {
      // Runs of one value (clustered input) between NULLs and scattered values.
      Long v = random.nextInt(50) == 0 ? null : random.nextLong() % 3000;
      for (int r = random.nextInt(4); r >= 0 && keys.size() < 5000; r--) {
        keys.add(java.util.Arrays.asList(v));
      }
    }
    Map<Object, Integer> ids = new HashMap<>();
    for (int from = 0; from < keys.size(); from += 1000) {
      List<List<Object>> batch = keys.subList(from, from + 1000);
      int[] out = findOrInsert(table, List.of(l), batch, null);
      for (int i = 0; i < out.length; i++) {
        Integer known = ids.putIfAbsent(batch.get(i).get(0), out[i]);
        assertThat(known == null ? out[i] : known).isEqualTo(out[i]);
      }
    }
    assertThat(table.size()).isEqualTo(ids.size());
    for (Map.Entry<Object, Integer> e : ids.entrySet()) {
      int column =
          e.getKey() == null ? 0x2f0b3a49 : Hashing.hashLong((Long) e.getKey()); // NULL_HASH
      assertThat(table.hashOf(e.getValue())).isEqualTo(GroupTable.mix(17 * 31 + column));
    }
    assertEmittedKeys(
        table,
        List.of(l),
        ids.entrySet().stream()
            .collect(
                java.util.stream.Collectors.toMap(
                    e -> java.util.Arrays.asList(e.getKey()), Map.Entry::getValue)));
  }

  /**
   * Integer keys landing in a few runs of adjacent slots (multiples of a power of two, so their
   * homes crowd and probes wrap around the table's end) keep their groups through every growth:
   * looked up again afterwards, in another order, each finds the id it got first.
   */
  @Test
  void groupsAreFoundAgainAfterTheTableGrewManyTimes() {
    Field l = new Field("l", FieldType.nullable(new ArrowType.Int(64, true)), null);
    GroupTable table = new GroupTable(List.of(l));
    List<List<Object>> keys = new ArrayList<>();
    for (long k = 0; k < 200_000; k++) {
      keys.add(java.util.Arrays.asList(k % 3 == 0 ? k << 20 : k * 7919));
    }
    Map<Object, Integer> ids = new HashMap<>();
    for (int from = 0; from < keys.size(); from += 4096) {
      List<List<Object>> batch = keys.subList(from, Math.min(keys.size(), from + 4096));
      int[] out = findOrInsert(table, List.of(l), batch, null);
      for (int i = 0; i < out.length; i++) {
        ids.put(batch.get(i).get(0), out[i]);
      }
    }
    assertThat(ids).hasSize(200_000);
    assertThat(new java.util.HashSet<>(ids.values())).hasSize(200_000);
    java.util.Collections.shuffle(keys, new Random(5));
    int differ = 0;
    for (int from = 0; from < keys.size(); from += 4096) {
      List<List<Object>> batch = keys.subList(from, Math.min(keys.size(), from + 4096));
      int[] out = findOrInsert(table, List.of(l), batch, null);
      for (int i = 0; i < out.length; i++) {
        differ += out[i] == ids.get(batch.get(i).get(0)) ? 0 : 1;
      }
    }
    assertThat(differ).as("keys that found another group after the growth").isZero();
    assertThat(table.size()).isEqualTo(200_000);
  }

  /**
   * A large table whose batches are nearly all new keys stops packing; the groups it packed stay
   * found through the column hashes, and a reset packs again.
   */
  @Test
  void packingStopsForManyNewKeysAndGroupsStayTheSame() {
    Field n = new Field("n", FieldType.nullable(new ArrowType.Int(32, true)), null);
    List<Field> fields = List.of(n, STR_A);
    GroupTable table = new GroupTable(fields);
    Map<List<Object>, Integer> ids = new HashMap<>();
    Random random = new Random(9);
    int next = 0;
    for (int round = 0; round < 12; round++) {
      List<List<Object>> keys = new ArrayList<>();
      for (int i = 0; i < 2048; i++) {
        // Fresh keys for eight rounds (the table passes 4096 groups), then mostly repeats.
        int x = round < 8 ? next++ : random.nextInt(next + 100);
        keys.add(java.util.Arrays.asList(x % 29 == 0 ? null : x, "s" + (x % 3)));
      }
      int[] out = findOrInsert(table, fields, keys, null);
      for (int i = 0; i < out.length; i++) {
        Integer known = ids.putIfAbsent(keys.get(i), out[i]);
        assertThat(known == null ? out[i] : known).as("key %s", keys.get(i)).isEqualTo(out[i]);
      }
      if (round == 1) {
        assertThat(table.packsKeys()).isTrue();
      }
    }
    assertThat(table.packsKeys()).isFalse();
    assertThat(table.size()).isEqualTo(ids.size());
    assertEmittedKeys(table, fields, ids);
    table.reset();
    assertThat(table.packsKeys()).isTrue();
    int[] out = findOrInsert(table, fields, List.of(List.of(1, "s1"), List.of(1, "s1")), null);
    assertThat(out).containsExactly(0, 0);
  }
}
