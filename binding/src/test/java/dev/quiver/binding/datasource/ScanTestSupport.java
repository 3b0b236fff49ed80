package dev.quiver.binding.datasource;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.settings.SessionConfig;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Shared fixtures: a schema with every supported type, batch builders, a scan runner. */
final class ScanTestSupport {
  private ScanTestSupport() {}

  static final Schema ALL_TYPES =
      new Schema(
          List.of(
              field("id", new ArrowType.Int(64, true)),
              field("i32", new ArrowType.Int(32, true)),
              field("dbl", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
              field("dec", new ArrowType.Decimal(20, 2, 128)),
              field("txt", ArrowType.Utf8.INSTANCE),
              field("flag", ArrowType.Bool.INSTANCE),
              field("day", new ArrowType.Date(DateUnit.DAY)),
              field("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null))));

  static Field field(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  /** The expected row {@code id} of the all-types fixture; every 7th row has NULLs (except id). */
  static List<Object> expectedRow(long id) {
    boolean nulls = id % 7 == 3;
    return Arrays.asList(
        id,
        nulls ? null : (int) (id * 3 - 100),
        nulls ? null : id / 4.0,
        nulls
            ? null
            : BigDecimal.valueOf(id)
                .multiply(BigDecimal.valueOf(1_000_000_007L))
                .add(new BigDecimal("0.25"))
                .negate(),
        nulls ? null : (id % 5 == 0 ? "" : "t\"x,\n" + id + "é"),
        nulls ? null : id % 2 == 0,
        nulls ? null : LocalDate.of(1995, 1, 1).plusDays(id),
        nulls ? null : LocalDateTime.of(2001, 2, 3, 4, 5, 6).plusNanos(id * 1_000_123_000L));
  }

  /** A batch of the all-types fixture holding ids {@code [from, from + count)}. */
  static VectorSchemaRoot allTypesBatch(long from, int count, BufferAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(ALL_TYPES, allocator);
    root.allocateNew();
    for (int r = 0; r < count; r++) {
      List<Object> row = expectedRow(from + r);
      ((BigIntVector) root.getVector(0)).setSafe(r, (Long) row.get(0));
      if (row.get(1) == null) {
        for (int c = 1; c < 8; c++) {
          root.getVector(c).setNull(r);
        }
        continue;
      }
      ((IntVector) root.getVector(1)).setSafe(r, (Integer) row.get(1));
      ((Float8Vector) root.getVector(2)).setSafe(r, (Double) row.get(2));
      ((DecimalVector) root.getVector(3)).setSafe(r, (BigDecimal) row.get(3));
      ((VarCharVector) root.getVector(4))
          .setSafe(r, ((String) row.get(4)).getBytes(StandardCharsets.UTF_8));
      ((BitVector) root.getVector(5)).setSafe(r, (Boolean) row.get(5) ? 1 : 0);
      ((DateDayVector) root.getVector(6)).setSafe(r, (int) ((LocalDate) row.get(6)).toEpochDay());
      LocalDateTime ts = (LocalDateTime) row.get(7);
      ((TimeStampMicroVector) root.getVector(7))
          .setSafe(r, ts.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + ts.getNano() / 1000);
    }
    root.setRowCount(count);
    return root;
  }

  /** Converts the value at {@code row} to the Java value used by {@link #expectedRow}. */
  static Object value(FieldVector v, int row) {
    if (v.isNull(row)) {
      return null;
    }
    Object o = v.getObject(row);
    if (v instanceof DateDayVector d) {
      return LocalDate.ofEpochDay(d.get(row));
    }
    if (o instanceof org.apache.arrow.vector.util.Text t) {
      return t.toString();
    }
    return o;
  }

  static ScanRequest request(int[] projection, OptionalLong limit, int partitions, int batchSize) {
    return new ScanRequest(
        projection, List.of(), limit, partitions, new SessionConfig().withBatchSize(batchSize));
  }

  /** Rows read from every partition, as lists of values; checks each batch's schema. */
  static List<List<Object>> readAll(ExecutionPlan plan, BufferAllocator allocator) {
    return readAll(plan, allocator, new SessionConfig());
  }

  /** As {@link #readAll(ExecutionPlan, BufferAllocator)}, running with {@code config}. */
  static List<List<Object>> readAll(
      ExecutionPlan plan, BufferAllocator allocator, SessionConfig config) {
    List<List<Object>> rows = new ArrayList<>();
    for (int p = 0; p < plan.partitionCount(); p++) {
      rows.addAll(readPartition(plan, p, allocator, config));
    }
    return rows;
  }

  static List<List<Object>> readPartition(
      ExecutionPlan plan, int partition, BufferAllocator allocator) {
    return readPartition(plan, partition, allocator, new SessionConfig());
  }

  static List<List<Object>> readPartition(
      ExecutionPlan plan, int partition, BufferAllocator allocator, SessionConfig config) {
    List<List<Object>> rows = new ArrayList<>();
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try {
      TaskContext ctx =
          new TaskContext("test", allocator, new MemoryPool(Long.MAX_VALUE), config, executor);
      try (BatchStream stream = plan.execute(partition, ctx)) {
        VectorSchemaRoot batch;
        while ((batch = stream.next()) != null) {
          try (VectorSchemaRoot b = batch) {
            if (!b.getSchema().equals(plan.schema())) {
              throw new AssertionError(
                  "batch schema " + b.getSchema() + " != plan schema " + plan.schema());
            }
            for (int r = 0; r < b.getRowCount(); r++) {
              List<Object> row = new ArrayList<>();
              for (FieldVector v : b.getFieldVectors()) {
                row.add(value(v, r));
              }
              rows.add(row);
            }
          }
        }
      }
    } finally {
      executor.shutdownNow();
    }
    return rows;
  }

  /** An ArrowReader over copies of {@code batches}; the caller keeps (and closes) its batches. */
  static ArrowReader readerOf(
      Schema schema, List<VectorSchemaRoot> batches, BufferAllocator allocator) {
    return new ArrowReader(allocator) {
      private int next;

      @Override
      public boolean loadNextBatch() {
        if (next >= batches.size()) {
          return false;
        }
        VectorSchemaRoot root;
        try {
          root = getVectorSchemaRoot();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
        try (VectorSchemaRoot copy =
            dev.quiver.binding.physical.scan.ScanBatches.deepCopy(batches.get(next++), allocator)) {
          for (int i = 0; i < copy.getFieldVectors().size(); i++) {
            copy.getVector(i).makeTransferPair(root.getVector(i)).transfer();
          }
          root.setRowCount(copy.getRowCount());
        }
        return true;
      }

      @Override
      public long bytesRead() {
        return 0;
      }

      @Override
      protected void closeReadSource() {}

      @Override
      protected Schema readSchema() {
        return schema;
      }
    };
  }

  static List<List<Object>> expectedRows(long from, long count) {
    List<List<Object>> rows = new ArrayList<>();
    for (long i = from; i < from + count; i++) {
      rows.add(expectedRow(i));
    }
    return rows;
  }

  static List<List<Object>> project(List<List<Object>> rows, int... columns) {
    List<List<Object>> out = new ArrayList<>();
    for (List<Object> row : rows) {
      List<Object> r = new ArrayList<>();
      for (int c : columns) {
        r.add(row.get(c));
      }
      out.add(r);
    }
    return out;
  }
}
