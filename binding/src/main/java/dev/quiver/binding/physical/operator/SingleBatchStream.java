package dev.quiver.binding.physical.operator;

import dev.quiver.binding.physical.BatchStream;
import java.util.function.Supplier;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** A stream of exactly one batch, built lazily on the first {@code next()}. */
final class SingleBatchStream implements BatchStream {
  private final Schema schema;
  private final Supplier<VectorSchemaRoot> batch;
  private boolean done;

  private SingleBatchStream(Schema schema, Supplier<VectorSchemaRoot> batch) {
    this.schema = schema;
    this.batch = batch;
  }

  static SingleBatchStream of(Schema schema, Supplier<VectorSchemaRoot> batch) {
    return new SingleBatchStream(schema, batch);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public VectorSchemaRoot next() {
    if (done) {
      return null;
    }
    done = true;
    return batch.get();
  }

  @Override
  public void close() {
    done = true;
  }
}
