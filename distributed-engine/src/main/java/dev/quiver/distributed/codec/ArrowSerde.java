package dev.quiver.distributed.codec;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.List;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
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

  /**
   * One batch as an Arrow IPC stream (schema, the batch, end of stream); the batch is only read.
   */
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

  /**
   * Reads the one batch of an IPC stream written by {@link #ipc}, allocated from a child of {@code
   * allocator}; both are added to {@code resources}, allocator first. The stream is read message by
   * message (not with ArrowStreamReader) so that corrupt bytes fail before allocating more than
   * they hold and leak nothing.
   */
  static VectorSchemaRoot batch(
      ByteString bytes, BufferAllocator allocator, List<AutoCloseable> resources) {
    BufferAllocator child =
        allocator.newChildAllocator("shipped-batch", 0, 2L * bytes.size() + 64 * 1024);
    resources.add(child);
    try (ReadChannel in = new ReadChannel(Channels.newChannel(bytes.newInput()))) {
      MessageMetadataResult schemaMessage = MessageSerializer.readMessage(in);
      if (schemaMessage == null || schemaMessage.headerType() != MessageHeader.Schema) {
        throw corrupt(bytes, "it does not start with a schema");
      }
      Schema schema = MessageSerializer.deserializeSchema(schemaMessage);
      MessageMetadataResult batchMessage = MessageSerializer.readMessage(in);
      if (batchMessage == null || batchMessage.headerType() != MessageHeader.RecordBatch) {
        throw corrupt(bytes, "it holds no record batch");
      }
      long bodyLength = batchMessage.getMessageBodyLength();
      if (bodyLength < 0 || bodyLength > bytes.size() - in.bytesRead()) {
        throw corrupt(bytes, "its record batch declares " + bodyLength + " bytes");
      }
      ArrowBuf body = MessageSerializer.readMessageBody(in, bodyLength, child);
      ArrowRecordBatch recordBatch;
      try {
        // Takes over the body buffer when it succeeds.
        recordBatch = MessageSerializer.deserializeRecordBatch(batchMessage, body);
      } catch (IOException | RuntimeException e) {
        body.close();
        throw e;
      }
      try (recordBatch) {
        VectorSchemaRoot batch = VectorSchemaRoot.create(schema, child);
        resources.add(batch);
        new VectorLoader(batch).load(recordBatch);
        return batch;
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof PlanCodecException p) {
        throw p;
      }
      throw corrupt(bytes, e.toString());
    } catch (OutOfMemoryError e) {
      // A corrupt metadata length asked for a huge heap buffer; only that request failed.
      throw corrupt(bytes, "it declares more metadata than it holds");
    }
  }

  private static PlanCodecException corrupt(ByteString bytes, String why) {
    return new PlanCodecException(
        "A shipped memory-table batch of "
            + bytes.size()
            + " bytes is not a valid Arrow IPC"
            + " stream: "
            + why);
  }
}
