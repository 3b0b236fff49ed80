package dev.quiver.executor;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.distributed.shuffle.ShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Counts the Arrow bytes of the shuffle input tasks read, local or remote, into the metrics. */
final class MeteredShuffleClient implements ShuffleClient {
  private final String executorId;
  private final ShuffleClient inner;
  private final ExecutorMetrics metrics;

  MeteredShuffleClient(String executorId, ShuffleClient inner, ExecutorMetrics metrics) {
    this.executorId = executorId;
    this.inner = inner;
    this.metrics = metrics;
  }

  @Override
  public BatchStream open(ShuffleLocation location, Schema schema, TaskContext context) {
    BatchStream stream = inner.open(location, schema, context);
    boolean local = executorId.equals(location.executorId());
    return new BatchStream() {
      @Override
      public Schema schema() {
        return stream.schema();
      }

      @Override
      public VectorSchemaRoot next() {
        VectorSchemaRoot batch = stream.next();
        if (batch != null) {
          long bytes = 0;
          for (FieldVector v : batch.getFieldVectors()) {
            bytes += v.getBufferSize();
          }
          metrics.fetched(local, bytes);
        }
        return batch;
      }

      @Override
      public void close() {
        stream.close();
      }
    };
  }
}
