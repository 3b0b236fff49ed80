package dev.quiver.binding.physical.join;

import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.spill.SpillFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One join input's rows hash-partitioned on its join keys into spill files, one per partition
 * (grace hash join). Both inputs are split with the same function at the same level, so rows with
 * equal keys (null keys included, which hash alike on both sides) land in partitions of the same
 * number. Each level mixes the key hash with its own seed, so a partition that is still too large
 * splits again one level down; the function also differs from the shuffle's, whose rows all share
 * one value of it in a partition.
 *
 * <p>When null keys match nothing ({@code separateNulls}), rows with a null key go to a file of
 * their own after the hash partitions: they all hash alike, so they would form one partition that
 * no split could shrink, and the join only streams them out unmatched.
 */
final class SpillPartitions implements AutoCloseable {
  private final SpillFile.Writer[] writers;
  private final int fanout;
  private final List<PhysicalExpr> keys;
  private final int level;
  private final BufferAllocator allocator;

  SpillPartitions(
      TaskContext context,
      String prefix,
      Schema schema,
      List<PhysicalExpr> keys,
      int fanout,
      int level,
      boolean separateNulls) {
    this.keys = keys;
    this.level = level;
    this.fanout = fanout;
    this.allocator = context.allocator();
    this.writers = new SpillFile.Writer[separateNulls ? fanout + 1 : fanout];
    try {
      for (int p = 0; p < writers.length; p++) {
        writers[p] =
            SpillFile.create(context.spillDirectory(), prefix, schema, context.allocator());
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The partition of a row whose key hash is {@code hash}, at {@code level}, of {@code fanout}. */
  static int partitionOf(int hash, int level, int fanout) {
    int h = hash ^ (0x9E3779B9 * (level + 1));
    // murmur3's finalizer: every bit of the hash affects the partition.
    h ^= h >>> 16;
    h *= 0x85EBCA6B;
    h ^= h >>> 13;
    h *= 0xC2B2AE35;
    h ^= h >>> 16;
    return Math.floorMod(h, fanout);
  }

  /** Appends the rows of {@code batch} (still owned by the caller) to their partitions. */
  void add(VectorSchemaRoot batch) {
    int rows = batch.getRowCount();
    if (rows == 0) {
      return;
    }
    int files = writers.length;
    boolean separateNulls = files > fanout;
    JoinKeys k = JoinKeys.extract(batch, keys, allocator);
    int[] part = new int[rows];
    int[] start = new int[files + 1];
    for (int r = 0; r < rows; r++) {
      part[r] = separateNulls && k.hasNull(r) ? fanout : partitionOf(k.hash(r), level, fanout);
      start[part[r] + 1]++;
    }
    for (int p = 0; p < files; p++) {
      start[p + 1] += start[p];
    }
    int[] fill = Arrays.copyOf(start, files);
    int[] order = new int[rows];
    for (int r = 0; r < rows; r++) {
      order[fill[part[r]]++] = r;
    }
    for (int p = 0; p < files; p++) {
      int n = start[p + 1] - start[p];
      if (n == rows) {
        writers[p].append(batch);
      } else if (n > 0) {
        writers[p].append(batch, Arrays.copyOfRange(order, start[p], start[p + 1]), n);
      }
    }
  }

  /**
   * Ends every file and hands them over, one per partition in order, then the null keys' file when
   * they are separated.
   */
  List<SpillFile> finish() {
    List<SpillFile> files = new ArrayList<>(writers.length);
    try {
      for (int p = 0; p < writers.length; p++) {
        files.add(writers[p].finish());
        writers[p] = null;
      }
    } catch (RuntimeException e) {
      Batches.closeAll(files);
      close();
      throw e;
    }
    return files;
  }

  /** Deletes the files not handed over. */
  @Override
  public void close() {
    Batches.closeAll(Arrays.asList(writers));
    Arrays.fill(writers, null);
  }
}
