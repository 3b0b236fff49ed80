package dev.quiver.executor;

import dev.quiver.distributed.shuffle.CompressedBatches;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Deterministic test batches (id BIGINT, name VARCHAR with nulls) and a row dump to compare. */
final class TestBatches {

  /** The job capability test tasks are launched with and test tickets carry. */
  static final com.google.protobuf.ByteString CAPABILITY =
      com.google.protobuf.ByteString.copyFrom(
          new byte[] {
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
            17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32
          });

  static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("id", new ArrowType.Int(64, true)),
              Field.nullable("name", ArrowType.Utf8.INSTANCE)));

  private TestBatches() {}

  /** Batch number {@code b} with {@code rows} rows: id = b * 100000 + i, every 7th name null. */
  static VectorSchemaRoot batch(BufferAllocator allocator, int b, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    id.allocateNew(rows);
    name.allocateNew(rows * 12L, rows);
    for (int i = 0; i < rows; i++) {
      long v = b * 100_000L + i;
      id.set(i, v);
      if (v % 7 == 0) {
        name.setNull(i);
      } else {
        name.setSafe(i, ("row-" + v).getBytes(StandardCharsets.UTF_8));
      }
    }
    root.setRowCount(rows);
    return root;
  }

  /** The expected dump of batches {@code 0..batches-1} of {@code rows} rows each. */
  static List<String> expected(int batches, int rows) {
    List<String> out = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      for (int i = 0; i < rows; i++) {
        long v = b * 100_000L + i;
        out.add(v + "|" + (v % 7 == 0 ? "null" : "row-" + v));
      }
    }
    return out;
  }

  /**
   * Passes each batch of a shuffle stream read with a raw Flight client to {@code action}: plain
   * batches as they are, compressed ones (IPC messages in app_metadata) decoded.
   */
  static void forEachBatch(
      FlightStream stream, BufferAllocator allocator, Consumer<VectorSchemaRoot> action) {
    while (stream.next()) {
      VectorSchemaRoot root = stream.getRoot();
      ArrowBuf compressed = stream.getLatestMetadata();
      if (compressed != null && root.getRowCount() == 0) {
        try (VectorSchemaRoot decoded =
            CompressedBatches.decode(compressed, root.getSchema(), allocator)) {
          action.accept(decoded);
        }
      } else {
        action.accept(root);
      }
    }
  }

  /** Appends one line per row of {@code root} to {@code out}. */
  static void dump(VectorSchemaRoot root, List<String> out) {
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    for (int i = 0; i < root.getRowCount(); i++) {
      out.add(
          id.get(i)
              + "|"
              + (name.isNull(i) ? "null" : new String(name.get(i), StandardCharsets.UTF_8)));
    }
  }
}
