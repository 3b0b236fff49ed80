package dev.quiver.binding.physical.share;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.MemoryReservation;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.spill.SpillFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One partition of a {@link SharedSubplanExec} in one execution: the input's stream, opened by the
 * first reader that needs a batch nobody has pulled yet, and the batches pulled but not yet taken
 * by every reader. Kept batches are reserved from the query's memory pool; a batch the pool refuses
 * is written to a spill file of its own and read back by each reader. A reader gets its own batch
 * over the kept one's buffers (Arrow reference counts them), so readers close what they read.
 */
final class SharedPartition implements AutoCloseable {
  private final SharedSubplanExec owner;
  private final int partition;
  private final TaskContext context;
  private final MemoryReservation reservation;

  /** Held while pulling the input, so that one reader pulls at a time and others may still read. */
  private final Object pullLock = new Object();

  /** The input's stream; touched only under {@link #pullLock}. */
  private BatchStream source;

  // Guarded by this.
  private final List<Kept> kept = new ArrayList<>();
  private long base;
  private final long[] positions;
  private int created;
  private int closedReaders;
  private boolean exhausted;
  private RuntimeException error;
  private boolean closed;

  SharedPartition(SharedSubplanExec owner, int partition, TaskContext context) {
    this.owner = owner;
    this.partition = partition;
    this.context = context;
    this.reservation =
        context
            .memoryPool()
            .newReservation("SharedSubplanExec(id=" + owner.id() + ") partition " + partition);
    this.positions = new long[owner.readers()];
  }

  /** A stream over every batch of the partition for the next of the planned readers. */
  synchronized BatchStream newReader() {
    if (created == positions.length) {
      throw new IllegalStateException(
          "SharedSubplanExec(id="
              + owner.id()
              + ") partition "
              + partition
              + " was read by more than its "
              + positions.length
              + " planned readers in query "
              + context.queryId());
    }
    if (closed) {
      throw new IllegalStateException(ended());
    }
    return new Reader(created++);
  }

  private String ended() {
    return "SharedSubplanExec(id=" + owner.id() + ") read after its execution ended";
  }

  /** The next batch for {@code reader} (owned by the caller), or null at the partition's end. */
  private VectorSchemaRoot next(int reader) {
    while (true) {
      synchronized (this) {
        VectorSchemaRoot batch = take(reader);
        if (batch != null || exhausted) {
          return batch;
        }
      }
      synchronized (pullLock) {
        synchronized (this) {
          if (closed || error != null || exhausted || positions[reader] < base + kept.size()) {
            continue; // another reader pulled meanwhile, or the partition ended
          }
        }
        pull();
      }
    }
  }

  /** The reader's next kept batch, or null if it has taken them all; under this lock. */
  private VectorSchemaRoot take(int reader) {
    if (closed) {
      throw new IllegalStateException(ended());
    }
    if (error != null) {
      throw error;
    }
    long at = positions[reader];
    if (at >= base + kept.size()) {
      return null;
    }
    VectorSchemaRoot batch = kept.get((int) (at - base)).copy(context);
    positions[reader] = at + 1;
    trim();
    return batch;
  }

  /** Pulls the input's next batch into the kept ones; under {@link #pullLock}. */
  private void pull() {
    try {
      if (source == null) {
        source = owner.input().execute(partition, context);
        owner.metrics().recordInputExecution();
      }
      VectorSchemaRoot batch = source.next();
      if (batch == null) {
        source.close();
        synchronized (this) {
          exhausted = true;
        }
        return;
      }
      if (batch.getRowCount() == 0) {
        batch.close();
        return;
      }
      Kept k = keep(batch);
      synchronized (this) {
        if (closed) {
          k.close();
          return;
        }
        kept.add(k);
      }
    } catch (RuntimeException e) {
      synchronized (this) {
        if (error == null) {
          error = e;
        }
      }
    }
  }

  /** Keeps {@code batch} in memory if the pool allows, else in a spill file of its own. */
  private Kept keep(VectorSchemaRoot batch) {
    long bytes = Batches.sizeInBytes(batch);
    if (reservation.tryGrow(bytes)) {
      return new Kept(batch, bytes, null);
    }
    try (VectorSchemaRoot b = batch;
        SpillFile.Writer writer =
            SpillFile.create(
                context.spillDirectory(),
                "quiver-shared-" + context.queryId() + "-",
                b.getSchema(),
                context.allocator())) {
      writer.append(b);
      SpillFile file = writer.finish();
      owner.metrics().recordSpill(file.bytes());
      return new Kept(null, 0, file);
    }
  }

  /** Frees the kept batches every reader, planned ones still to come included, has taken. */
  private void trim() {
    long min = Long.MAX_VALUE;
    if (created < positions.length) {
      min = base;
    } else {
      for (long p : positions) {
        min = Math.min(min, p);
      }
    }
    int drop = (int) Math.min(kept.size(), min - base);
    if (drop <= 0) {
      return;
    }
    List<Kept> done = kept.subList(0, drop);
    for (Kept k : done) {
      k.close();
      reservation.shrink(k.bytes);
    }
    done.clear();
    base += drop;
  }

  private void readerClosed(int reader) {
    boolean last;
    synchronized (this) {
      if (positions[reader] == Long.MAX_VALUE) {
        return;
      }
      positions[reader] = Long.MAX_VALUE;
      closedReaders++;
      last = closedReaders == positions.length;
      if (!last && !closed) {
        trim();
      }
    }
    if (last) {
      close();
    }
  }

  /** Frees the kept batches and stops the input; readers still open then fail. */
  @Override
  public void close() {
    List<Kept> left;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      left = new ArrayList<>(kept);
      kept.clear();
    }
    try {
      Batches.closeAll(left);
    } finally {
      reservation.close();
      // A reader still pulling holds the lock; the execution's end cancels its pull first.
      synchronized (pullLock) {
        if (source != null) {
          source.close();
        }
      }
    }
  }

  /** A pulled batch, in memory ({@code bytes} reserved) or spilled. */
  private record Kept(VectorSchemaRoot batch, long bytes, SpillFile file) implements AutoCloseable {
    /** A batch of the reader's own over this one's rows. */
    VectorSchemaRoot copy(TaskContext context) {
      if (batch != null) {
        return Batches.slice(batch, 0, batch.getRowCount(), context.allocator());
      }
      try (BatchStream in = file.stream(context.allocator())) {
        VectorSchemaRoot read = in.next();
        if (read == null) {
          throw new QuiverException("Spill file " + file.path() + " of a shared subplan is empty");
        }
        return read;
      }
    }

    @Override
    public void close() {
      if (batch != null) {
        batch.close();
      } else {
        file.close();
      }
    }
  }

  /** One reader's stream: counted in the shared node's metrics, like an operator's output. */
  private final class Reader implements BatchStream {
    private final int reader;

    Reader(int reader) {
      this.reader = reader;
    }

    @Override
    public Schema schema() {
      return owner.schema();
    }

    @Override
    public VectorSchemaRoot next() {
      context.checkCancelled();
      long start = System.nanoTime();
      VectorSchemaRoot batch = SharedPartition.this.next(reader);
      owner.metrics().addElapsed(System.nanoTime() - start);
      if (batch != null) {
        owner.metrics().recordBatch(batch.getRowCount());
      }
      return batch;
    }

    @Override
    public void close() {
      readerClosed(reader);
    }
  }

  @Override
  public String toString() {
    return "SharedPartition " + partition + " readers at " + Arrays.toString(positions);
  }
}
