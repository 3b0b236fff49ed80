package dev.quiver.binding.physical.exchange;

import dev.quiver.binding.physical.BatchStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** The consumer side of a {@link BatchChannel} as a stream; runs a callback once on close. */
final class ChannelStream implements BatchStream {
  private final Schema schema;
  private final BatchChannel channel;
  private final Runnable onClose;
  private boolean closed;

  ChannelStream(Schema schema, BatchChannel channel, Runnable onClose) {
    this.schema = schema;
    this.channel = channel;
    this.onClose = onClose;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public VectorSchemaRoot next() {
    return channel.receive();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      channel.close();
      onClose.run();
    }
  }
}
