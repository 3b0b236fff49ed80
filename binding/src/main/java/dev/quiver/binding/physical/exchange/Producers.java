package dev.quiver.binding.physical.exchange;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.TaskContext;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Background loops that pull an input partition and feed channels. */
final class Producers {
  private Producers() {}

  /**
   * Waits for background producers to stop, so that a closed stream has released every batch before
   * its query's allocator is checked and closed.
   */
  static void awaitAll(List<Future<?>> producers) {
    for (Future<?> f : producers) {
      try {
        f.get(60, TimeUnit.SECONDS);
      } catch (ExecutionException | CancellationException e) {
        // The failure was already delivered through the channel.
      } catch (TimeoutException e) {
        throw new QuiverException(
            "Input producer did not stop within 60 s after its consumer closed", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Pulls every batch of {@code input} partition {@code partition} into {@code channel}. */
  static void pump(ExecutionPlan input, int partition, TaskContext context, BatchChannel channel) {
    try (BatchStream stream = input.execute(partition, context)) {
      VectorSchemaRoot batch;
      while (!channel.isClosed() && (batch = stream.next()) != null) {
        channel.send(batch);
      }
    } catch (Throwable t) {
      channel.fail(t);
    } finally {
      channel.producerDone();
    }
  }
}
