package dev.quiver.executor.task;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Hashing;
import dev.quiver.binding.physical.kernel.Take;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.executor.shuffle.ShuffleStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Splits one task's output batches into its output partitions (by hash of key expressions, round
 * robin by batch, or all into partition 0) and appends them to the executor's shuffle store.
 */
public final class ShuffleWriter {

  private final ShuffleStore store;
  private final String jobId;
  private final int stageId;
  private final int taskId;
  private final Partitioning output;
  private final int partitions;
  private final Schema schema;
  private final BufferAllocator allocator;
  private final ShuffleCompression compression;
  private Schema written;
  private long nextRoundRobin;
  private long rows;
  private long bytes;
  private final long[] partitionRows;
  private final long[] partitionBytes;
  private boolean finished;

  /**
   * Creates a writer for one task.
   *
   * @param output how the stage splits its rows (HASH, ROUND_ROBIN or SINGLE)
   * @param partitions how many output partitions the task writes (the consumers' task count)
   * @param schema schema of the task's output, used for partitions that get no rows
   * @param allocator where hash keys and split batches are allocated (the task's allocator)
   * @throws QuiverException if {@code output} is not a partitioning a stage can write
   */
  public ShuffleWriter(
      ShuffleStore store,
      String jobId,
      int stageId,
      int taskId,
      Partitioning output,
      int partitions,
      Schema schema,
      BufferAllocator allocator) {
    this(store, jobId, stageId, taskId, output, partitions, schema, allocator, null);
  }

  /**
   * Creates a writer for one task whose partitions are served with {@code compression} (null: the
   * executor's default); the other parameters are as above.
   */
  public ShuffleWriter(
      ShuffleStore store,
      String jobId,
      int stageId,
      int taskId,
      Partitioning output,
      int partitions,
      Schema schema,
      BufferAllocator allocator,
      ShuffleCompression compression) {
    if (partitions < 1) {
      throw new IllegalArgumentException("a task writes at least one partition: " + partitions);
    }
    if (output.kind() == Partitioning.Kind.UNKNOWN) {
      throw new QuiverException(
          "stage "
              + stageId
              + " has output partitioning "
              + output
              + "; a stage's output must be HASH, ROUND_ROBIN or SINGLE");
    }
    this.store = store;
    this.jobId = jobId;
    this.stageId = stageId;
    this.taskId = taskId;
    this.output = output;
    this.partitions = partitions;
    this.schema = schema;
    this.allocator = allocator;
    this.compression = compression;
    this.partitionRows = new long[partitions];
    this.partitionBytes = new long[partitions];
    // Start each task at its own partition so that tasks with few batches spread evenly.
    this.nextRoundRobin = taskId;
  }

  /**
   * Writes one batch. The caller keeps ownership of {@code batch} and closes it; its buffers may
   * have been moved into the store (it is then empty).
   */
  public void write(VectorSchemaRoot batch) {
    if (finished) {
      throw new IllegalStateException("the shuffle writer of " + describeTask() + " is finished");
    }
    int count = batch.getRowCount();
    if (count == 0) {
      return;
    }
    if (written == null) {
      written = batch.getSchema();
    }
    rows += count;
    if (partitions == 1 || output.kind() == Partitioning.Kind.SINGLE) {
      append(0, batch);
    } else if (output.kind() == Partitioning.Kind.ROUND_ROBIN) {
      append((int) (nextRoundRobin++ % partitions), batch);
    } else {
      splitByHash(batch);
    }
  }

  private void splitByHash(VectorSchemaRoot batch) {
    int count = batch.getRowCount();
    int[] target = new int[count];
    List<FieldVector> keys = new ArrayList<>(output.hashExprs().size());
    try {
      for (PhysicalExpr e : output.hashExprs()) {
        keys.add(e.evaluate(batch, allocator));
      }
      Hashing.hashRows(keys, count, target);
    } finally {
      keys.forEach(FieldVector::close);
    }
    int[] sizes = new int[partitions];
    for (int i = 0; i < count; i++) {
      target[i] = Hashing.partition(target[i], partitions);
      sizes[target[i]]++;
    }
    int[][] indices = new int[partitions][];
    for (int p = 0; p < partitions; p++) {
      indices[p] = new int[sizes[p]];
    }
    int[] fill = new int[partitions];
    for (int i = 0; i < count; i++) {
      int p = target[i];
      indices[p][fill[p]++] = i;
    }
    for (int p = 0; p < partitions; p++) {
      if (sizes[p] == count) {
        // Every row goes to one partition: hand over the batch itself instead of a copy.
        append(p, batch);
        return;
      }
      if (sizes[p] > 0) {
        try (VectorSchemaRoot part = Take.take(batch, indices[p], sizes[p], allocator)) {
          append(p, part);
        }
      }
    }
  }

  private void append(int partition, VectorSchemaRoot batch) {
    long size = sizeOf(batch);
    bytes += size;
    partitionBytes[partition] += size;
    partitionRows[partition] += batch.getRowCount();
    store.append(ShuffleTickets.id(jobId, stageId, taskId, partition), batch);
  }

  private static long sizeOf(VectorSchemaRoot batch) {
    long size = 0;
    for (FieldVector v : batch.getFieldVectors()) {
      size += v.getBufferSize();
    }
    return size;
  }

  /** Completes every output partition (empty ones too), making them readable. */
  public void finish() {
    if (finished) {
      return;
    }
    Schema complete = written == null ? schema : written;
    for (int p = 0; p < partitions; p++) {
      ShufflePartitionId id = ShuffleTickets.id(jobId, stageId, taskId, p);
      store.complete(id, complete, compression);
    }
    finished = true;
  }

  /** Rows written so far. */
  public long rows() {
    return rows;
  }

  /** Arrow buffer bytes written so far. */
  public long bytes() {
    return bytes;
  }

  /** Arrow buffer bytes written so far to each output partition, in partition order. */
  public List<Long> partitionBytes() {
    return Arrays.stream(partitionBytes).boxed().toList();
  }

  /** Rows written so far to each output partition, in partition order. */
  public List<Long> partitionRows() {
    return Arrays.stream(partitionRows).boxed().toList();
  }

  private String describeTask() {
    return "job " + jobId + " stage " + stageId + " task " + taskId;
  }
}
