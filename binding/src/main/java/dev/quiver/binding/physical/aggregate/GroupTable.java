package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.physical.expr.Vectors;
import dev.quiver.binding.physical.kernel.Hashing;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Open-addressing hash table from group-key rows to dense group ids 0..size-1. Keys are held column
 * by column in primitive arrays; a batch is probed a column at a time for hashing and with inlined
 * loops for one or two integer keys and for one string key.
 *
 * <p>When every key column is narrow (see {@link KeyPacker}) a second index maps each group's
 * packed key to its id: a row whose key packs finds an existing group by one long comparison,
 * without loading, hashing or comparing the key columns. Only rows with a new key, or a key too
 * wide to pack, take the column-hash path, which inserts the group into the packed index too when
 * its key packs (a key that does not pack can equal no packed row, so its group is found by column
 * hash only). A single integer key column is looked up the same way by its value. The stored hash
 * is always the column hash: spilled runs are sorted and merged by it, so it must not depend on how
 * a group was found.
 */
final class GroupTable {
  private static final int NULL_HASH = 0x2f0b3a49;
  // Packed-index slots to start with: roomy, so a handful of groups rarely collide (a collision
  // among few groups costs a mispredicted branch on a large share of the rows).
  private static final int PACKED_INITIAL = 256;
  private static final int HASH_SEED = 17;
  private static final int STOP_PACKING_GROUPS = 4096;
  // probeLong's rows per touch-ahead pass: their home slots' cache lines (64 bytes each) stay well
  // within the L2 cache until the probe reaches them.
  private static final int AHEAD = 256;
  // Groups from which probeLong touches ahead: below, the slots fit the caches anyway.
  private static final int TOUCH_GROUPS = 1 << 16;

  private final KeyColumn[] cols;
  // Each slot packs (hash << 32) | (group id + 1), 0 = empty: a probe compares hashes without
  // touching the group arrays, saving a cache miss per collision.
  private long[] slots = new long[64];
  private int[] groupHash = new int[16];
  private int size;
  private int[] hashes = new int[0];
  // Where touchHomes leaves what it loaded, so the JIT cannot drop the loads.
  private long touched;
  // probeGeneric's per-row flags (a candidate group found by hash; its key differs), reused.
  private boolean[] candidate = new boolean[0];
  // Always all false between calls: probeGeneric clears the entries it sets.
  private boolean[] differs = new boolean[0];

  // When the key columns pack (packer != null): the index of the groups whose key packs; this
  // batch's packed keys, the rows still to place by column hash, and the ids found for them.
  private final KeyPacker packer;
  // False once packing stopped paying (see probePacked), until reset(); every group is always
  // in the column-hash slots too, so the index may be dropped at any time.
  private boolean packing;
  private final KeyPacker.Scratch packScratch = new KeyPacker.Scratch();
  private final LongGroupIndex packedIndex;
  private long[] rowPacked = new long[0];
  private boolean[] pending = new boolean[0];
  private int[] pendingOut = new int[0];

  // A single integer key column (probed by value in the column-hash slots), and the NULL key's
  // group or -1.
  private final boolean longKey;
  private int nullGroup = -1;

  GroupTable(List<Field> keyFields) {
    cols = new KeyColumn[keyFields.size()];
    for (int i = 0; i < cols.length; i++) {
      cols[i] = KeyColumn.of(keyFields.get(i));
    }
    // One integer column is indexed by its value (the null group aside); packing would add nothing.
    longKey = cols.length == 1 && cols[0] instanceof LongKeys;
    packer = longKey ? null : KeyPacker.of(keyFields);
    packedIndex = packer == null ? null : new LongGroupIndex(PACKED_INITIAL);
    packing = packer != null;
  }

  /** Whether rows are looked up by packed key (for tests). */
  boolean packsKeys() {
    return packing;
  }

  /** Number of groups. */
  int size() {
    return size;
  }

  /** Stored (mixed) hash of group {@code g}. */
  int hashOf(int g) {
    return groupHash[g];
  }

  /**
   * Maps each row of {@code keys} to its group id in {@code out}, inserting new groups. Rows whose
   * {@code mask} entry is false are skipped and get -1.
   */
  void findOrInsert(List<FieldVector> keys, int rows, boolean[] mask, int[] out) {
    if (packing) {
      probePacked(keys, rows, mask, out);
      return;
    }
    if (longKey) {
      LongKeys k = (LongKeys) cols[0];
      k.load(keys.get(0), rows);
      probeLong(k, rows, mask, out);
      return;
    }
    int[] h = hashRows(keys, rows);
    if (cols.length == 0) {
      if (size == 0) {
        insert(0, 0);
      }
      for (int i = 0; i < rows; i++) {
        out[i] = mask == null || mask[i] ? 0 : -1;
      }
      return;
    }
    probe(rows, mask, out, h);
  }

  /** Loads the key columns and computes every row's (mixed) column hash. */
  private int[] hashRows(List<FieldVector> keys, int rows) {
    if (hashes.length < rows) {
      hashes = new int[Math.max(rows, 1024)];
    }
    int[] h = hashes;
    Arrays.fill(h, 0, rows, HASH_SEED);
    for (int c = 0; c < cols.length; c++) {
      cols[c].load(keys.get(c), rows);
      cols[c].hash(rows, h);
    }
    for (int i = 0; i < rows; i++) {
      h[i] = mix(h[i]);
    }
    return h;
  }

  /** Column-hash probe of the rows {@code mask} selects (all when null). */
  private void probe(int rows, boolean[] mask, int[] out, int[] h) {
    if (cols.length == 2 && cols[0] instanceof LongKeys k0 && cols[1] instanceof LongKeys k1) {
      probeLong2(k0, k1, rows, mask, out, h);
    } else if (cols.length == 1 && cols[0] instanceof BytesKeys k) {
      probeBytes(k, rows, mask, out, h);
    } else {
      probeGeneric(rows, mask, out, h);
    }
  }

  /**
   * Finds each packed row's group in the packed index; the remaining rows (new keys, keys that do
   * not pack) then take the column-hash probe, which inserts their groups.
   */
  private void probePacked(List<FieldVector> keys, int rows, boolean[] mask, int[] out) {
    if (rowPacked.length < rows) {
      rowPacked = new long[Math.max(rows, 1024)];
      pending = new boolean[rowPacked.length];
      pendingOut = new int[rowPacked.length];
    }
    long[] p = rowPacked;
    packer.pack(keys, rows, packScratch, p);
    boolean[] rest = pending;
    int misses = 0;
    for (int i = 0; i < rows; i++) {
      int g = -1;
      if (mask == null || mask[i]) {
        long k = p[i];
        g = k == KeyPacker.UNPACKABLE ? -1 : packedIndex.find(k);
        if (g < 0) {
          misses++;
        }
        rest[i] = g < 0;
      } else {
        rest[i] = false;
      }
      out[i] = g;
    }
    if (misses == 0) {
      return;
    }
    if (rows >= 1024 && misses > rows - rows / 8 && size >= STOP_PACKING_GROUPS) {
      // Nearly every row is new or does not pack, and the table is large: the packed index
      // costs a cache miss per row on top of the column-hash path's, so stop maintaining it.
      packing = false;
      packedIndex.reset();
    }
    int[] h = hashRows(keys, rows);
    probe(rows, rest, pendingOut, h);
    for (int i = 0; i < rows; i++) {
      if (rest[i]) {
        out[i] = pendingOut[i];
      }
    }
  }

  /**
   * One integer key: a row repeating the previous row's value takes its group without hashing or
   * probing (input clustered by the key, such as line items by order, repeats most values); the
   * others probe the column-hash slots. (A separate index of values next to their group ids, one
   * cache line a probe, was no faster in TPC-H runs and took 16-32 more bytes a group: 0.5 GB more
   * for Q18's 15M groups at SF 10.)
   *
   * <p>Rows are taken {@link #AHEAD} at a time: a first loop hashes them and loads each one's home
   * slot, loads that do not depend on one another, so the processor has many cache misses in flight
   * at once; the probe loop then finds those slots in the cache. In a table of millions of groups
   * (a FINAL aggregate after a shuffle, where nearly every key is new) the probe otherwise waits
   * for one miss at a time.
   */
  private void probeLong(LongKeys k, int rows, boolean[] mask, int[] out) {
    long[] bv = k.bv;
    boolean[] bn = k.bn;
    long prevValue = 0;
    int prevGroup = -1; // the group of the last non-null row, -1 before one
    for (int from = 0; from < rows; from += AHEAD) {
      int to = Math.min(rows, from + AHEAD);
      if (size >= TOUCH_GROUPS) {
        touchHomes(bv, from, to);
      }
      for (int i = from; i < to; i++) {
        if (mask != null && !mask[i]) {
          out[i] = -1;
          continue;
        }
        int g;
        if (bn[i]) {
          g = nullGroup >= 0 ? nullGroup : (nullGroup = insert(i, mix(HASH_SEED * 31 + NULL_HASH)));
        } else if (prevGroup >= 0 && bv[i] == prevValue) {
          g = prevGroup;
        } else {
          long v = bv[i];
          int hash = mix(HASH_SEED * 31 + Hashing.hashLong(v));
          int m = slots.length - 1;
          int s = hash & m;
          while (true) {
            long e = slots[s];
            if (e == 0) {
              g = insert(i, hash);
              break;
            }
            int c = (int) e - 1;
            if ((int) (e >>> 32) == hash && k.vals[c] == v && !k.nulls[c]) {
              g = c;
              break;
            }
            s = (s + 1) & m;
          }
          prevValue = v;
          prevGroup = g;
        }
        out[i] = g;
      }
    }
  }

  /**
   * Loads the home slot of rows {@code from..to}, leaving the sum in {@link #touched} so that the
   * loads are not dropped. A row repeating the previous row's value is skipped, as the probe skips
   * it.
   */
  private void touchHomes(long[] bv, int from, int to) {
    long[] sl = slots;
    int m = sl.length - 1;
    long sum = 0;
    for (int i = from; i < to; i++) {
      if (i > 0 && bv[i] == bv[i - 1]) {
        continue;
      }
      // Loading the found group's key too (a second miss) made random keys slower, not faster.
      sum += sl[mix(HASH_SEED * 31 + Hashing.hashLong(bv[i])) & m];
    }
    touched += sum;
  }

  private void probeLong2(LongKeys k0, LongKeys k1, int rows, boolean[] mask, int[] out, int[] h) {
    long[] bv0 = k0.bv;
    boolean[] bn0 = k0.bn;
    long[] bv1 = k1.bv;
    boolean[] bn1 = k1.bn;
    for (int i = 0; i < rows; i++) {
      if (mask != null && !mask[i]) {
        out[i] = -1;
        continue;
      }
      int hash = h[i];
      int m = slots.length - 1;
      int s = hash & m;
      int g;
      while (true) {
        long e = slots[s];
        if (e == 0) {
          g = insert(i, hash);
          break;
        }
        g = (int) e - 1;
        if ((int) (e >>> 32) == hash
            && k0.vals[g] == bv0[i]
            && k1.vals[g] == bv1[i]
            && k0.nulls[g] == bn0[i]
            && k1.nulls[g] == bn1[i]) {
          break;
        }
        s = (s + 1) & m;
      }
      out[i] = g;
    }
  }

  private void probeBytes(BytesKeys k, int rows, boolean[] mask, int[] out, int[] h) {
    for (int i = 0; i < rows; i++) {
      if (mask != null && !mask[i]) {
        out[i] = -1;
        continue;
      }
      int hash = h[i];
      int m = slots.length - 1;
      int s = hash & m;
      int g;
      while (true) {
        long e = slots[s];
        if (e == 0) {
          g = insert(i, hash);
          break;
        }
        g = (int) e - 1;
        if ((int) (e >>> 32) == hash && k.equalsRow(g, i)) {
          break;
        }
        s = (s + 1) & m;
      }
      out[i] = g;
    }
  }

  /**
   * Several key columns (or one not handled above): each row first takes the first group whose
   * stored hash equals its own, or a new group; then each key column checks every row's candidate
   * in one loop of its own (no per-row virtual call, which for several column types is a
   * megamorphic call per row and column); the rare rows whose candidate differs in some column (a
   * 32-bit hash collision) continue probing past it one at a time.
   */
  private void probeGeneric(int rows, boolean[] mask, int[] out, int[] h) {
    if (candidate.length < rows) {
      candidate = new boolean[Math.max(rows, 1024)];
      differs = new boolean[candidate.length];
    }
    for (int i = 0; i < rows; i++) {
      if (mask != null && !mask[i]) {
        out[i] = -1;
        candidate[i] = false;
        continue;
      }
      int hash = h[i];
      int m = slots.length - 1;
      int s = hash & m;
      while (true) {
        long e = slots[s];
        if (e == 0) {
          out[i] = insert(i, hash);
          candidate[i] = false;
          break;
        }
        if ((int) (e >>> 32) == hash) {
          out[i] = (int) e - 1;
          candidate[i] = true;
          break;
        }
        s = (s + 1) & m;
      }
    }
    // A row that created its group matches it; every other row checks its candidate column by
    // column, and the rare mismatch probes again with the full key.
    for (KeyColumn c : cols) {
      c.verify(out, candidate, differs, rows);
    }
    for (int i = 0; i < rows; i++) {
      if (differs[i]) {
        differs[i] = false;
        out[i] = probeOne(i, h[i], out[i]);
      }
    }
  }

  /** Full-key probe of row {@code row}, skipping group {@code notThis} (known to differ). */
  private int probeOne(int row, int hash, int notThis) {
    int m = slots.length - 1;
    int s = hash & m;
    while (true) {
      long e = slots[s];
      if (e == 0) {
        return insert(row, hash);
      }
      int g = (int) e - 1;
      if (g != notThis && (int) (e >>> 32) == hash && equalsRow(g, row)) {
        return g;
      }
      s = (s + 1) & m;
    }
  }

  private boolean equalsRow(int g, int row) {
    for (KeyColumn c : cols) {
      if (!c.equalsRow(g, row)) {
        return false;
      }
    }
    return true;
  }

  /** Appends batch row {@code row} as a new group and returns its id. */
  private int insert(int row, int hash) {
    int g = size;
    if (g == groupHash.length) {
      groupHash = Arrays.copyOf(groupHash, g * 2);
    }
    groupHash[g] = hash;
    for (KeyColumn c : cols) {
      c.append(g, row);
    }
    size++;
    if (packing && rowPacked[row] != KeyPacker.UNPACKABLE) {
      packedIndex.put(rowPacked[row], g);
    }
    if (cols.length > 0) {
      if (size * 2 > slots.length) {
        rehash(slots.length * 2);
      }
      place(g, hash);
    }
    return g;
  }

  private void place(int g, int hash) {
    int m = slots.length - 1;
    int s = hash & m;
    while (slots[s] != 0) {
      s = (s + 1) & m;
    }
    slots[s] = ((long) hash << 32) | (g + 1L);
  }

  /**
   * Moves every slot into a table of {@code capacity} slots, taking the old slots in order: their
   * entries' homes in the larger table rise with their old positions, so the writes sweep the new
   * table twice instead of landing at random (placing groups by id cost a cache miss each, as many
   * as the inserts themselves for millions of groups).
   */
  private void rehash(int capacity) {
    long[] grown = new long[capacity];
    int m = capacity - 1;
    for (long e : slots) {
      if (e != 0) {
        int s = (int) (e >>> 32) & m;
        while (grown[s] != 0) {
          s = (s + 1) & m;
        }
        grown[s] = e;
      }
    }
    slots = grown;
  }

  /** Builds key column {@code c} for groups {@code gids[0..n)}. */
  FieldVector emitKey(int c, int[] gids, int n, BufferAllocator allocator) {
    return cols[c].emit(gids, n, allocator);
  }

  /** Number of key columns. */
  int keyCount() {
    return cols.length;
  }

  /** Heap bytes held, for memory accounting. */
  long estimatedBytes() {
    long b = (long) slots.length * 8 + (long) groupHash.length * 4 + (long) hashes.length * 4;
    if (packer != null) {
      b += packedIndex.bytes() + (long) rowPacked.length * 13;
    }
    for (KeyColumn c : cols) {
      b += c.bytes();
    }
    return b;
  }

  /** Drops every group and returns the arrays to their initial size. */
  void reset() {
    slots = new long[64];
    groupHash = new int[16];
    size = 0;
    if (packedIndex != null) {
      packedIndex.reset();
    }
    packing = packer != null;
    nullGroup = -1;
    for (KeyColumn c : cols) {
      c.reset();
    }
  }

  static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  /** One key column: the current batch's values plus the stored values of every group. */
  abstract static class KeyColumn {
    final Field field;

    KeyColumn(Field field) {
      this.field = field;
    }

    static KeyColumn of(Field field) {
      return switch (Vectors.storage(field.getType())) {
        case LONG, BOOL, DOUBLE -> new LongKeys(field);
        case DECIMAL -> new DecimalKeys(field);
        case BYTES -> new BytesKeys(field);
        case NULL -> new NullKeys(field);
      };
    }

    abstract void load(FieldVector v, int rows);

    abstract void hash(int rows, int[] h);

    abstract boolean equalsRow(int g, int row);

    /**
     * Sets {@code differs[i]} for each row {@code i} with a {@code candidate} whose group {@code
     * groups[i]} holds a different key in this column.
     */
    void verify(int[] groups, boolean[] candidate, boolean[] differs, int rows) {
      for (int i = 0; i < rows; i++) {
        if (candidate[i] && !equalsRow(groups[i], i)) {
          differs[i] = true;
        }
      }
    }

    abstract void append(int g, int row);

    abstract FieldVector emit(int[] gids, int n, BufferAllocator allocator);

    abstract long bytes();

    abstract void reset();
  }

  /** Integers, dates, timestamps, booleans and floating point (as canonical bits). */
  static final class LongKeys extends KeyColumn {
    private final boolean floating;
    long[] bv = new long[0];
    boolean[] bn = new boolean[0];
    long[] vals = new long[16];
    boolean[] nulls = new boolean[16];

    LongKeys(Field field) {
      super(field);
      floating = field.getType() instanceof ArrowType.FloatingPoint;
    }

    @Override
    void load(FieldVector v, int rows) {
      if (bv.length < rows) {
        bv = new long[Math.max(rows, 1024)];
        bn = new boolean[bv.length];
      }
      boolean hasNulls = Vectors.nulls(v, rows, bn);
      if (floating) {
        double[] d = Vectors.doubles(v, rows, null);
        for (int i = 0; i < rows; i++) {
          double x = d[i] == 0.0 ? 0.0 : d[i]; // -0.0 groups with 0.0
          bv[i] = Double.doubleToLongBits(x); // canonical NaN
        }
      } else {
        Vectors.longs(v, rows, bv);
      }
      if (hasNulls) {
        for (int i = 0; i < rows; i++) {
          if (bn[i]) {
            bv[i] = 0;
          }
        }
      }
    }

    @Override
    void hash(int rows, int[] h) {
      for (int i = 0; i < rows; i++) {
        h[i] = h[i] * 31 + (bn[i] ? NULL_HASH : Hashing.hashLong(bv[i]));
      }
    }

    @Override
    boolean equalsRow(int g, int row) {
      return vals[g] == bv[row] && nulls[g] == bn[row];
    }

    @Override
    void verify(int[] groups, boolean[] candidate, boolean[] differs, int rows) {
      long[] v = vals;
      boolean[] n = nulls;
      for (int i = 0; i < rows; i++) {
        if (candidate[i]) {
          int g = groups[i];
          if (v[g] != bv[i] || n[g] != bn[i]) {
            differs[i] = true;
          }
        }
      }
    }

    @Override
    void append(int g, int row) {
      if (g == vals.length) {
        vals = Arrays.copyOf(vals, g * 2);
        nulls = Arrays.copyOf(nulls, g * 2);
      }
      vals[g] = bv[row];
      nulls[g] = bn[row];
    }

    @Override
    FieldVector emit(int[] gids, int n, BufferAllocator allocator) {
      boolean[] valid = new boolean[n];
      if (floating) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
          d[i] = Double.longBitsToDouble(vals[gids[i]]);
          valid[i] = !nulls[gids[i]];
        }
        return Vectors.fromDoubles(field, d, valid, n, allocator);
      }
      long[] l = new long[n];
      for (int i = 0; i < n; i++) {
        l[i] = vals[gids[i]];
        valid[i] = !nulls[gids[i]];
      }
      return Vectors.fromLongs(field, l, valid, n, allocator);
    }

    @Override
    long bytes() {
      return (long) vals.length * 9 + (long) bv.length * 9;
    }

    @Override
    void reset() {
      vals = new long[16];
      nulls = new boolean[16];
    }
  }

  /** DECIMAL keys as two 64-bit halves. */
  static final class DecimalKeys extends KeyColumn {
    private long[] blo = new long[0];
    private long[] bhi = new long[0];
    private boolean[] bn = new boolean[0];
    private long[] lo = new long[16];
    private long[] hi = new long[16];
    private boolean[] nulls = new boolean[16];

    DecimalKeys(Field field) {
      super(field);
    }

    @Override
    void load(FieldVector v, int rows) {
      if (blo.length < rows) {
        blo = new long[Math.max(rows, 1024)];
        bhi = new long[blo.length];
        bn = new boolean[blo.length];
      }
      Vectors.nulls(v, rows, bn);
      ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
      for (int i = 0; i < rows; i++) {
        if (bn[i]) {
          blo[i] = 0;
          bhi[i] = 0;
        } else {
          blo[i] = data.getLong((long) i * 16);
          bhi[i] = data.getLong((long) i * 16 + 8);
        }
      }
    }

    @Override
    void hash(int rows, int[] h) {
      for (int i = 0; i < rows; i++) {
        h[i] = h[i] * 31 + (bn[i] ? NULL_HASH : Hashing.hashLong(blo[i] * 31 + bhi[i]));
      }
    }

    @Override
    boolean equalsRow(int g, int row) {
      return lo[g] == blo[row] && hi[g] == bhi[row] && nulls[g] == bn[row];
    }

    @Override
    void verify(int[] groups, boolean[] candidate, boolean[] differs, int rows) {
      for (int i = 0; i < rows; i++) {
        if (candidate[i]) {
          int g = groups[i];
          if (lo[g] != blo[i] || hi[g] != bhi[i] || nulls[g] != bn[i]) {
            differs[i] = true;
          }
        }
      }
    }

    @Override
    void append(int g, int row) {
      if (g == lo.length) {
        lo = Arrays.copyOf(lo, g * 2);
        hi = Arrays.copyOf(hi, g * 2);
        nulls = Arrays.copyOf(nulls, g * 2);
      }
      lo[g] = blo[row];
      hi[g] = bhi[row];
      nulls[g] = bn[row];
    }

    @Override
    FieldVector emit(int[] gids, int n, BufferAllocator allocator) {
      FieldVector v = Vectors.allocate(field, n, allocator);
      ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
      ArrowBuf validity = v.getValidityBuffer();
      for (int i = 0; i < n; i++) {
        int g = gids[i];
        if (!nulls[g]) {
          data.setLong((long) i * 16, lo[g]);
          data.setLong((long) i * 16 + 8, hi[g]);
          BitVectorHelper.setBit(validity, i);
        }
      }
      v.setValueCount(n);
      return v;
    }

    @Override
    long bytes() {
      return (long) lo.length * 17 + (long) blo.length * 17;
    }

    @Override
    void reset() {
      lo = new long[16];
      hi = new long[16];
      nulls = new boolean[16];
    }
  }

  /** Utf8/binary keys in one byte arena with end offsets. */
  static final class BytesKeys extends KeyColumn {
    private byte[] bdata = new byte[0];
    private int[] boff = new int[1];
    private boolean[] bn = new boolean[0];
    private byte[] arena = new byte[256];
    private int[] ends = new int[17]; // ends[g + 1] is the end of group g
    private boolean[] nulls = new boolean[16];

    BytesKeys(Field field) {
      super(field);
    }

    @Override
    void load(FieldVector v, int rows) {
      if (bn.length < rows) {
        bn = new boolean[Math.max(rows, 1024)];
        boff = new int[bn.length + 1];
      }
      if (rows == 0) {
        return;
      }
      Vectors.nulls(v, rows, bn);
      BaseVariableWidthVector var = (BaseVariableWidthVector) v;
      ArrowBuf offsets = var.getOffsetBuffer();
      int base = offsets.getInt(0);
      int end = offsets.getInt((long) rows * 4);
      for (int i = 0; i <= rows; i++) {
        boff[i] = offsets.getInt((long) i * 4) - base;
      }
      int len = end - base;
      if (bdata.length < len) {
        bdata = new byte[Math.max(len, bdata.length * 2)];
      }
      if (len > 0) {
        var.getDataBuffer().getBytes(base, bdata, 0, len);
      }
    }

    private int len(int row) {
      return bn[row] ? 0 : boff[row + 1] - boff[row];
    }

    @Override
    void hash(int rows, int[] h) {
      for (int i = 0; i < rows; i++) {
        int hv;
        if (bn[i]) {
          hv = NULL_HASH;
        } else {
          long x = len(i);
          for (int p = boff[i], e = boff[i + 1]; p < e; p++) {
            x = (x ^ bdata[p]) * 0x100000001b3L;
          }
          hv = Hashing.hashLong(x);
        }
        h[i] = h[i] * 31 + hv;
      }
    }

    @Override
    boolean equalsRow(int g, int row) {
      if (nulls[g] != bn[row]) {
        return false;
      }
      if (bn[row]) {
        return true;
      }
      int s = ends[g];
      int len = ends[g + 1] - s;
      int r = boff[row];
      if (boff[row + 1] - r != len) {
        return false;
      }
      if (len > 16) {
        return Arrays.equals(arena, s, s + len, bdata, r, r + len);
      }
      // Short keys (flags, codes) are compared inline: the library call costs more than the bytes.
      for (int k = 0; k < len; k++) {
        if (arena[s + k] != bdata[r + k]) {
          return false;
        }
      }
      return true;
    }

    @Override
    void append(int g, int row) {
      if (g + 1 == ends.length) {
        ends = Arrays.copyOf(ends, ends.length * 2);
        nulls = Arrays.copyOf(nulls, ends.length);
      }
      int len = len(row);
      int start = ends[g];
      if (start + len > arena.length) {
        arena = Arrays.copyOf(arena, Math.max(arena.length * 2, start + len));
      }
      if (len > 0) {
        System.arraycopy(bdata, boff[row], arena, start, len);
      }
      ends[g + 1] = start + len;
      nulls[g] = bn[row];
    }

    @Override
    FieldVector emit(int[] gids, int n, BufferAllocator allocator) {
      byte[][] b = new byte[n][];
      for (int i = 0; i < n; i++) {
        int g = gids[i];
        b[i] = nulls[g] ? null : Arrays.copyOfRange(arena, ends[g], ends[g + 1]);
      }
      return Vectors.fromBytes(field, b, n, allocator);
    }

    @Override
    long bytes() {
      return arena.length + (long) ends.length * 5 + bdata.length + (long) boff.length * 5;
    }

    @Override
    void reset() {
      arena = new byte[256];
      ends = new int[17];
      nulls = new boolean[16];
    }
  }

  /** The untyped NULL: every row has the same (null) key. */
  static final class NullKeys extends KeyColumn {
    NullKeys(Field field) {
      super(field);
    }

    @Override
    void load(FieldVector v, int rows) {}

    @Override
    void hash(int rows, int[] h) {
      for (int i = 0; i < rows; i++) {
        h[i] = h[i] * 31 + NULL_HASH;
      }
    }

    @Override
    boolean equalsRow(int g, int row) {
      return true;
    }

    @Override
    void append(int g, int row) {}

    @Override
    FieldVector emit(int[] gids, int n, BufferAllocator allocator) {
      NullVector v = new NullVector(field);
      v.setValueCount(n);
      return v;
    }

    @Override
    long bytes() {
      return 0;
    }

    @Override
    void reset() {}
  }
}
