package dev.quiver.binding.physical.exchange;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.BatchCoalescer;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Take;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Redistributes rows over a new number of partitions, by hash of key expressions or round-robin by
 * batch. All input partitions are pulled concurrently in the background as soon as the first output
 * partition is executed.
 */
public final class RepartitionExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final Partitioning partitioning;

  /** One running exchange per query execution; a plan object may serve several queries. */
  private final Map<TaskContext, Exchange> running =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** Creates the operator; {@code partitioning} must be HASH or ROUND_ROBIN. */
  public RepartitionExec(ExecutionPlan input, Partitioning partitioning) {
    super(input.schema(), List.of(input));
    if (partitioning.kind() != Partitioning.Kind.HASH
        && partitioning.kind() != Partitioning.Kind.ROUND_ROBIN) {
      throw new IllegalArgumentException(
          "RepartitionExec needs HASH or ROUND_ROBIN partitioning: " + partitioning);
    }
    this.input = input;
    this.partitioning = partitioning;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  @Override
  public Partitioning outputPartitioning() {
    return partitioning;
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new RepartitionExec(children.get(0), partitioning);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    Exchange exchange;
    synchronized (running) {
      exchange = running.computeIfAbsent(context, c -> new Exchange(c));
    }
    return exchange.open(partition);
  }

  @Override
  public String displayDetails() {
    return "partitioning=" + partitioning + ", input_partitions=" + input.partitionCount();
  }

  /** The shared state of one execution: output channels fed by one producer per input partition. */
  private final class Exchange {
    private final TaskContext context;
    private final BatchChannel[] channels;
    private final List<Future<?>> producers = new ArrayList<>();
    private int closedOutputs;

    Exchange(TaskContext context) {
      this.context = context;
      int inputs = input.partitionCount();
      this.channels = new BatchChannel[partitioning.partitionCount()];
      for (int i = 0; i < channels.length; i++) {
        channels[i] = new BatchChannel(inputs);
      }
      for (int p = 0; p < inputs; p++) {
        int part = p;
        producers.add(context.executor().submit(() -> produce(part)));
      }
      context.registerCleanup(this::shutdown);
    }

    BatchStream open(int partition) {
      BatchChannel channel = channels[partition];
      return new ChannelStream(schema(), channel, this::outputClosed);
    }

    private void outputClosed() {
      synchronized (this) {
        if (++closedOutputs < channels.length) {
          return;
        }
      }
      running.remove(context);
      Producers.awaitAll(producers);
    }

    /** Closes every output (also ones never opened) and waits for the producers. */
    private void shutdown() {
      for (BatchChannel c : channels) {
        c.close();
      }
      running.remove(context);
      Producers.awaitAll(producers);
    }

    private boolean allClosed() {
      for (BatchChannel c : channels) {
        if (!c.isClosed()) {
          return false;
        }
      }
      return true;
    }

    private void produce(int inputPartition) {
      int n = channels.length;
      long roundRobin = inputPartition;
      HashSplitter splitter =
          partitioning.kind() == Partitioning.Kind.HASH
              ? new HashSplitter(partitioning.hashExprs(), n)
              : null;
      // A hash split cuts each batch into n pieces; merge them back to full-size batches.
      BatchCoalescer[] coalescers = new BatchCoalescer[n];
      for (int p = 0; p < n; p++) {
        coalescers[p] = new BatchCoalescer(context.batchSize(), context.allocator());
      }
      try (BatchStream stream = input.execute(inputPartition, context)) {
        VectorSchemaRoot batch;
        while (!allClosed() && (batch = stream.next()) != null) {
          if (batch.getRowCount() == 0) {
            batch.close();
            continue;
          }
          if (partitioning.kind() == Partitioning.Kind.ROUND_ROBIN) {
            channels[(int) (roundRobin++ % n)].send(batch);
          } else {
            try (VectorSchemaRoot owned = batch) {
              splitByHash(owned, splitter, coalescers);
            }
          }
        }
        for (int p = 0; p < n; p++) {
          VectorSchemaRoot rest = coalescers[p].flush();
          if (rest != null) {
            send(p, rest);
          }
        }
      } catch (Throwable t) {
        for (BatchChannel c : channels) {
          c.fail(t);
        }
      } finally {
        Batches.closeAll(Arrays.asList(coalescers));
        for (BatchChannel c : channels) {
          c.producerDone();
        }
      }
    }

    private void send(int p, VectorSchemaRoot batch) {
      if (channels[p].isClosed()) {
        batch.close();
      } else {
        channels[p].send(batch);
      }
    }

    private void splitByHash(
        VectorSchemaRoot batch, HashSplitter splitter, BatchCoalescer[] coalescers) {
      BufferAllocator allocator = context.allocator();
      int[][] rows = splitter.split(batch, allocator);
      for (int p = 0; p < rows.length; p++) {
        if (rows[p].length > 0 && !channels[p].isClosed()) {
          for (VectorSchemaRoot ready :
              coalescers[p].add(Take.take(batch, rows[p], rows[p].length, allocator))) {
            send(p, ready);
          }
        }
      }
    }
  }
}
