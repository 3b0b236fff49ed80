package dev.quiver.executor.shuffle;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.exchange.HashSplitter;
import dev.quiver.binding.physical.kernel.Take;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import dev.quiver.distributed.wire.ShuffleTickets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The producer side of a stage boundary, the root of a task's plan: runs one partition of the
 * stage's plan and splits its rows into the task's output partitions (by hash of key expressions
 * with the {@link HashSplitter} a repartition uses, round robin by batch, or all into partition 0)
 * in the executor's shuffle store, then completes every one of them (empty ones too).
 *
 * <p>Its stream returns no batches: draining it writes the output. Its metrics count the rows and
 * store batches written and, as spilled bytes, the task's output the store holds on disk. A node
 * belongs to one task: {@link #rows()}, {@link #bytes()} and the per-partition counts are the
 * task's.
 */
public final class ShuffleWriterExec extends BaseExecutionPlan {

  /**
   * Where a task's output goes.
   *
   * @param compression how its partitions are served (null: the executor's default)
   */
  public record Destination(
      ShuffleStore store, String jobId, int stageId, int taskId, ShuffleCompression compression) {}

  private final ExecutionPlan input;
  private final Partitioning output;
  private final int partitions;
  private final Destination to;
  private final Consumer<VectorSchemaRoot> observer;
  private final long[] partitionRows;
  private final long[] partitionBytes;
  private long rows;
  private long bytes;

  /**
   * Creates the writer of one task.
   *
   * @param output how the stage splits its rows (HASH, ROUND_ROBIN or SINGLE)
   * @param partitions how many output partitions the task writes (the consumers' task count)
   * @param observer sees every non-empty batch before it is written (null: none); the batch is the
   *     writer's, and may be emptied once the observer returns
   * @throws QuiverException if {@code output} is not a partitioning a stage can write
   */
  public ShuffleWriterExec(
      ExecutionPlan input,
      Partitioning output,
      int partitions,
      Destination to,
      Consumer<VectorSchemaRoot> observer) {
    super(input.schema(), List.of(input));
    if (partitions < 1) {
      throw new IllegalArgumentException("a task writes at least one partition: " + partitions);
    }
    if (output.kind() == Partitioning.Kind.UNKNOWN) {
      throw new QuiverException(
          "stage "
              + to.stageId()
              + " has output partitioning "
              + output
              + "; a stage's output must be HASH, ROUND_ROBIN or SINGLE");
    }
    this.input = input;
    this.output = output;
    this.partitions = partitions;
    this.to = to;
    this.observer = observer;
    this.partitionRows = new long[partitions];
    this.partitionBytes = new long[partitions];
  }

  /** A writer without an observer. */
  public ShuffleWriterExec(
      ExecutionPlan input, Partitioning output, int partitions, Destination to) {
    this(input, output, partitions, to, null);
  }

  /** The stage plan whose partition the task runs. */
  public ExecutionPlan input() {
    return input;
  }

  /** Partition {@code p} runs partition {@code p} of the input. */
  @Override
  public Partitioning outputPartitioning() {
    return input.outputPartitioning();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new ShuffleWriterExec(children.get(0), output, partitions, to, observer);
  }

  @Override
  public String displayDetails() {
    return "partitioning=" + output + ", output_partitions=" + partitions;
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new Writing(input.execute(partition, context), context);
  }

  /** Rows written. */
  public synchronized long rows() {
    return rows;
  }

  /** Arrow buffer bytes written. */
  public synchronized long bytes() {
    return bytes;
  }

  /** Arrow buffer bytes written to each output partition, in partition order. */
  public synchronized List<Long> partitionBytes() {
    return Arrays.stream(partitionBytes).boxed().toList();
  }

  /** Rows written to each output partition, in partition order. */
  public synchronized List<Long> partitionRows() {
    return Arrays.stream(partitionRows).boxed().toList();
  }

  /** Writes the whole input partition on the first {@link #next()}. */
  private final class Writing implements BatchStream {
    private final BatchStream source;
    private final TaskContext context;
    private final HashSplitter splitter;
    // Each task starts at its own partition so that tasks with few batches spread evenly.
    private long nextRoundRobin = to.taskId();
    private Schema written;
    private boolean finished;

    Writing(BatchStream source, TaskContext context) {
      this.source = source;
      this.context = context;
      this.splitter =
          output.kind() == Partitioning.Kind.HASH && partitions > 1
              ? new HashSplitter(output.hashExprs(), partitions)
              : null;
    }

    @Override
    public Schema schema() {
      return ShuffleWriterExec.this.schema();
    }

    @Override
    public VectorSchemaRoot next() {
      if (finished) {
        return null;
      }
      VectorSchemaRoot batch;
      while ((batch = source.next()) != null) {
        try (VectorSchemaRoot owned = batch) {
          write(owned);
        }
        context.checkCancelled();
      }
      finish();
      return null;
    }

    private void write(VectorSchemaRoot batch) {
      int count = batch.getRowCount();
      if (count == 0) {
        return;
      }
      if (observer != null) {
        observer.accept(batch);
      }
      if (written == null) {
        written = batch.getSchema();
      }
      if (partitions == 1 || output.kind() == Partitioning.Kind.SINGLE) {
        append(0, batch);
      } else if (output.kind() == Partitioning.Kind.ROUND_ROBIN) {
        append((int) (nextRoundRobin++ % partitions), batch);
      } else {
        int[][] byPartition = splitter.split(batch, context.allocator());
        for (int p = 0; p < partitions; p++) {
          int[] rowsOfP = byPartition[p];
          if (rowsOfP.length == count) {
            // Every row goes to one partition: hand over the batch itself instead of a copy.
            append(p, batch);
            return;
          }
          if (rowsOfP.length > 0) {
            try (VectorSchemaRoot part =
                Take.take(batch, rowsOfP, rowsOfP.length, context.allocator())) {
              append(p, part);
            }
          }
        }
      }
    }

    private void append(int partition, VectorSchemaRoot batch) {
      long size = 0;
      for (FieldVector v : batch.getFieldVectors()) {
        size += v.getBufferSize();
      }
      synchronized (ShuffleWriterExec.this) {
        rows += batch.getRowCount();
        bytes += size;
        partitionBytes[partition] += size;
        partitionRows[partition] += batch.getRowCount();
      }
      metrics().recordBatch(batch.getRowCount());
      to.store().append(ShuffleTickets.id(to.jobId(), to.stageId(), to.taskId(), partition), batch);
    }

    /** Completes every output partition, making them readable. */
    private void finish() {
      Schema complete = written == null ? input.schema() : written;
      for (int p = 0; p < partitions; p++) {
        to.store()
            .complete(
                ShuffleTickets.id(to.jobId(), to.stageId(), to.taskId(), p),
                complete,
                to.compression());
      }
      finished = true;
      long onDisk = to.store().diskBytesOf(to.jobId(), to.stageId(), to.taskId());
      if (onDisk > 0) {
        metrics().recordSpill(onDisk);
      }
    }

    @Override
    public void close() {
      source.close();
    }
  }
}
