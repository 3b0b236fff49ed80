package dev.quiver.distributed.codec;

import com.google.protobuf.ByteString;
import dev.quiver.binding.physical.kernel.Batches;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Arrow's own serializations: schemas and types as flatbuffers, batches as IPC streams. */
final class ArrowSerde {
  private ArrowSerde() {}

  /** A schema as an Arrow IPC schema message. */
  static ByteString schema(Schema schema) {
    return ByteString.copyFrom(schema.serializeAsMessage());
  }

  /** Reads a schema written by {@link #schema(Schema)}. */
  static Schema schema(ByteString bytes, String what) {
    if (bytes.isEmpty()) {
      throw new PlanCodecException("The plan lacks the schema of " + what);
    }
    try {
      return Schema.deserializeMessage(ByteBuffer.wrap(bytes.toByteArray()));
    } catch (RuntimeException e) {
      throw new PlanCodecException("The schema of " + what + " is not a valid Arrow schema", e);
    }
  }

  /** A type, as a schema of one field of that type. */
  static ByteString type(ArrowType type) {
    return schema(new Schema(List.of(Field.nullable("t", type))));
  }

  /** Reads a type written by {@link #type(ArrowType)}. */
  static ArrowType type(ByteString bytes, String what) {
    List<Field> fields = schema(bytes, "the type of " + what).getFields();
    if (fields.size() != 1) {
      throw new PlanCodecException("The type of " + what + " is not a single Arrow type");
    }
    return fields.get(0).getType();
  }

  /** One batch as an Arrow IPC stream (schema, the batch, end of stream); the batch is only read. */
  static byte[] ipc(VectorSchemaRoot batch) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(batch, null, Channels.newChannel(out))) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new PlanCodecException("Serializing a memory-table batch failed: " + e.getMessage(), e);
    }
    return out.toByteArray();
  }

  /** Reads the one batch of an IPC stream written by {@link #ipc}, allocated from {@code allocator}. */
  static VectorSchemaRoot batch(ByteString bytes, BufferAllocator allocator) {
    try (ArrowStreamReader reader = new ArrowStreamReader(bytes.newInput(), allocator)) {
      if (!reader.loadNextBatch()) {
        throw new PlanCodecException("A shipped memory-table batch holds no record batch");
      }
      return Batches.transfer(reader.getVectorSchemaRoot(), allocator);
    } catch (IOException e) {
      throw new PlanCodecException(
          "A shipped memory-table batch is not a valid Arrow IPC stream: " + e.getMessage(), e);
    }
  }
}
