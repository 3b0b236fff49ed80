package dev.quiver.binding.physical.sort;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryReservation;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Take;
import dev.quiver.binding.physical.spill.SpillFile;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Sorts its input by a list of {@link SortField}s, per partition or into one partition, as a top-k
 * when {@code fetch >= 0}. Buffered input is reserved in the query's memory pool; when the pool is
 * full the buffer is sorted and spilled as a run, and runs are merged at the end.
 */
public final class SortExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final List<SortField> order;
  private final long fetch;
  private final boolean preservePartitioning;

  /** Creates the operator; {@code fetch < 0} means no limit. */
  public SortExec(
      ExecutionPlan input, List<SortField> order, long fetch, boolean preservePartitioning) {
    super(input.schema(), List.of(input));
    SortKeys.checkSortable(order);
    this.input = input;
    this.order = List.copyOf(order);
    this.fetch = fetch;
    this.preservePartitioning = preservePartitioning;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  /** The sort keys, most significant first. */
  public List<SortField> order() {
    return order;
  }

  /** Rows to keep (top-k), or a negative number for all. */
  public long fetch() {
    return fetch;
  }

  /** Whether each input partition is sorted on its own. */
  public boolean preservePartitioning() {
    return preservePartitioning;
  }

  @Override
  public Partitioning outputPartitioning() {
    return preservePartitioning ? input.outputPartitioning() : Partitioning.single();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (children.size() != 1) {
      throw new IllegalArgumentException("SortExec takes one child, got " + children.size());
    }
    return new SortExec(children.get(0), order, fetch, preservePartitioning);
  }

  @Override
  public String displayDetails() {
    return "order="
        + order
        + (fetch >= 0 ? ", fetch=" + fetch : "")
        + (preservePartitioning ? ", preserve_partitioning=true" : "");
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    BatchStream in;
    if (preservePartitioning) {
      in = input.execute(partition, context);
    } else if (input.partitionCount() == 1) {
      in = input.execute(0, context);
    } else {
      PartitionPuller puller = new PartitionPuller(input, context, false);
      in =
          new BatchStream() {
            @Override
            public Schema schema() {
              return input.schema();
            }

            @Override
            public VectorSchemaRoot next() {
              return puller.next(0);
            }

            @Override
            public void close() {
              puller.close();
            }
          };
    }
    return new SortStream(in, context, partition);
  }

  private final class SortStream implements BatchStream {
    private final BatchStream in;
    private final TaskContext context;
    private final BufferAllocator allocator;
    private final MemoryReservation reservation;
    private final int batchSize;
    private final List<VectorSchemaRoot> buffered = new ArrayList<>();
    private final List<SpillFile> runs = new ArrayList<>();
    private final String consumer;
    private long bufferedRows;

    /** With a fetch: the first key of the last row of a full top-k kept so far, else null. */
    private SortKeys boundary;

    private int boundaryRow;
    private BatchStream output;
    private boolean inputClosed;
    private boolean closed;

    SortStream(BatchStream in, TaskContext context, int partition) {
      this.in = in;
      this.context = context;
      this.allocator = context.allocator();
      this.batchSize = context.batchSize();
      this.consumer = "SortExec[" + order + ", partition " + partition + "]";
      this.reservation = context.memoryPool().newReservation(consumer);
    }

    @Override
    public Schema schema() {
      return SortExec.this.schema();
    }

    @Override
    public VectorSchemaRoot next() {
      if (closed) {
        return null;
      }
      try {
        if (output == null) {
          if (fetch != 0) {
            consumeInput();
          }
          closeInput();
          output = buildOutput();
        }
        return output.next();
      } catch (OutOfMemoryException e) {
        throw new ResourcesExhaustedException(
            "Resources exhausted: "
                + consumer
                + " could not allocate Arrow memory ("
                + e.getMessage()
                + "); raise quiver.execution.memory_limit",
            e);
      }
    }

    private void consumeInput() {
      VectorSchemaRoot b;
      while ((b = in.next()) != null) {
        if (b.getRowCount() == 0) {
          b.close();
          continue;
        }
        add(b);
      }
    }

    /**
     * Bytes reserved for a buffered batch: twice its size, because sorting the buffer concatenates
     * it, so while a run is sorted and spilled the buffer and its copy both live.
     */
    private static long reservedSize(VectorSchemaRoot b) {
      return 2 * Batches.sizeInBytes(b);
    }

    private void add(VectorSchemaRoot b) {
      if (boundary != null) {
        b = keepRowsBeforeBoundary(b);
        if (b == null) {
          return;
        }
      }
      long size = reservedSize(b);
      if (!reservation.tryGrow(size)) {
        if (!buffered.isEmpty()) {
          spill();
        }
        if (!reservation.tryGrow(size)) {
          // Even alone this batch does not fit: sort and spill it on its own.
          buffered.add(b);
          bufferedRows += b.getRowCount();
          spill();
          return;
        }
      }
      buffered.add(b);
      bufferedRows += b.getRowCount();
      if (fetch > 0
          && bufferedRows >= Math.max(batchSize, Math.min(Long.MAX_VALUE / 4, fetch) * 2)) {
        compact();
      }
    }

    /** Sorts the buffer into one batch and its permutation; the buffer is left empty. */
    private SortedRunStream sortBuffered() {
      VectorSchemaRoot all;
      if (buffered.size() == 1) {
        all = buffered.get(0);
      } else {
        try {
          all = Batches.concat(SortExec.this.schema(), buffered, allocator);
        } finally {
          Batches.closeAll(buffered);
        }
      }
      buffered.clear();
      bufferedRows = 0;
      try {
        SortKeys keys = SortKeys.extract(all, order, allocator);
        int rows = all.getRowCount();
        // A fetch far below the buffer (a top-k) keeps its best rows in a heap instead of sorting
        // them all.
        int[] perm =
            fetch >= 0 && fetch <= rows / 8
                ? keys.topPermutation((int) fetch)
                : keys.sortedPermutation();
        int count = fetch >= 0 ? (int) Math.min(perm.length, fetch) : perm.length;
        return new SortedRunStream(all, perm, count, batchSize, allocator);
      } catch (RuntimeException e) {
        all.close();
        throw e;
      }
    }

    /**
     * A top-k's input rows whose first key sorts after the k-th row kept so far cannot make the
     * result (k rows before them exist, in memory or in a spilled run): they are dropped before
     * they are buffered, which after the first batches is most rows, at the cost of one key
     * comparison each. Returns the rows left (null when none; {@code b} is then closed).
     */
    private VectorSchemaRoot keepRowsBeforeBoundary(VectorSchemaRoot b) {
      SortKeys first = SortKeys.extract(b, order.subList(0, 1), allocator);
      int n = b.getRowCount();
      int[] keep = new int[n];
      int kept = 0;
      for (int r = 0; r < n; r++) {
        if (first.compare(r, boundary, boundaryRow) <= 0) {
          keep[kept++] = r;
        }
      }
      if (kept == n) {
        return b;
      }
      try {
        return kept == 0 ? null : Take.take(b, keep, kept, allocator);
      } finally {
        b.close();
      }
    }

    private void compact() {
      long before = reservation.size();
      try (SortedRunStream run = sortBuffered()) {
        VectorSchemaRoot top = Take.take(run.batch(), run.perm(), run.count(), allocator);
        buffered.add(top);
        bufferedRows = top.getRowCount();
        if (bufferedRows == fetch) {
          boundary = SortKeys.extract(top, order.subList(0, 1), allocator);
          boundaryRow = (int) fetch - 1;
        }
        long after = reservedSize(top);
        if (after < before) {
          reservation.shrink(before - after);
        }
      }
    }

    private void spill() {
      context.checkCancelled();
      try (SortedRunStream run = sortBuffered()) {
        SpillFile file =
            SpillFile.write(
                context.spillDirectory(),
                "quiver-sort-" + context.queryId() + "-",
                run.batch(),
                run.perm(),
                run.count(),
                batchSize,
                allocator);
        runs.add(file);
        metrics().recordSpill(file.bytes());
      } finally {
        reservation.shrink(reservation.size());
      }
    }

    private BatchStream buildOutput() {
      if (!runs.isEmpty() && !buffered.isEmpty()) {
        // Once anything spilled, spill the rest too: the merge then holds one small batch per
        // run instead of the whole remaining buffer plus its sorted copy.
        spill();
      }
      List<BatchStream> sources = new ArrayList<>();
      for (SpillFile f : runs) {
        sources.add(
            new BatchStream() {
              @Override
              public Schema schema() {
                return SortExec.this.schema();
              }

              @Override
              public VectorSchemaRoot next() {
                return f.next(allocator);
              }

              @Override
              public void close() {
                f.close();
              }
            });
      }
      runs.clear();
      if (!buffered.isEmpty()) {
        sources.add(sortBuffered());
      }
      if (sources.isEmpty()) {
        return new SortedMerge(SortExec.this.schema(), order, List.of(), allocator, batchSize, 0);
      }
      if (sources.size() == 1) {
        return sources.get(0);
      }
      return new SortedMerge(SortExec.this.schema(), order, sources, allocator, batchSize, fetch);
    }

    private void closeInput() {
      if (!inputClosed) {
        inputClosed = true;
        in.close();
      }
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      List<AutoCloseable> all = new ArrayList<>();
      all.add(this::closeInput);
      all.addAll(buffered);
      all.addAll(runs);
      all.add(output);
      all.add(reservation);
      buffered.clear();
      runs.clear();
      Batches.closeAll(all);
    }
  }
}
