package dev.quiver.binding.physical.sort;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.settings.SessionConfig;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;

/** Test-only builders of batches from Java values and collectors of results into rows. */
public final class TestData {
  public static final ArrowType BIGINT = new ArrowType.Int(64, true);
  public static final ArrowType INT = new ArrowType.Int(32, true);
  public static final ArrowType DOUBLE = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  public static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;
  public static final ArrowType BOOL = ArrowType.Bool.INSTANCE;
  public static final ArrowType DATE = new ArrowType.Date(DateUnit.DAY);

  private TestData() {}

  /** A nullable field. */
  public static Field field(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  /** A decimal(38, scale) type. */
  public static ArrowType decimal(int scale) {
    return new ArrowType.Decimal(38, scale, 128);
  }

  /**
   * Builds a batch; values are Long, Integer, Double, String, BigDecimal, Boolean, LocalDate or
   * null.
   */
  public static VectorSchemaRoot batch(
      Schema schema, BufferAllocator allocator, List<Object[]> rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    for (int c = 0; c < schema.getFields().size(); c++) {
      FieldVector v = root.getVector(c);
      for (int r = 0; r < rows.size(); r++) {
        Object o = rows.get(r)[c];
        if (o == null) {
          if (v instanceof org.apache.arrow.vector.BaseFixedWidthVector fw) {
            fw.setNull(r);
          } else if (v instanceof VarCharVector s) {
            s.setNull(r);
          }
          continue;
        }
        if (v instanceof BigIntVector x) {
          x.setSafe(r, ((Number) o).longValue());
        } else if (v instanceof IntVector x) {
          x.setSafe(r, ((Number) o).intValue());
        } else if (v instanceof Float8Vector x) {
          x.setSafe(r, ((Number) o).doubleValue());
        } else if (v instanceof VarCharVector x) {
          x.setSafe(r, o.toString().getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof DecimalVector x) {
          x.setSafe(r, (BigDecimal) o);
        } else if (v instanceof BitVector x) {
          x.setSafe(r, ((Boolean) o) ? 1 : 0);
        } else if (v instanceof DateDayVector x) {
          x.setSafe(r, (int) ((LocalDate) o).toEpochDay());
        } else {
          throw new IllegalArgumentException("unsupported test vector " + v);
        }
      }
      v.setValueCount(rows.size());
    }
    root.setRowCount(rows.size());
    return root;
  }

  /**
   * Reads row {@code r} of {@code batch} as Java values (Strings for text, LocalDate for dates).
   */
  public static Object[] row(VectorSchemaRoot batch, int r) {
    Object[] out = new Object[batch.getFieldVectors().size()];
    for (int c = 0; c < out.length; c++) {
      FieldVector v = batch.getVector(c);
      Object o = v.isNull(r) ? null : v.getObject(r);
      if (o instanceof Text t) {
        o = t.toString();
      } else if (v instanceof DateDayVector d && o != null) {
        o = LocalDate.ofEpochDay(d.get(r));
      }
      out[c] = o;
    }
    return out;
  }

  /** Drains a stream into rows, closing every batch and the stream. */
  public static List<List<Object>> drain(BatchStream stream) {
    List<List<Object>> rows = new ArrayList<>();
    try (stream) {
      VectorSchemaRoot next;
      while ((next = stream.next()) != null) {
        try (VectorSchemaRoot b = next) {
          for (int r = 0; r < b.getRowCount(); r++) {
            rows.add(Arrays.asList(row(b, r)));
          }
        }
      }
    }
    return rows;
  }

  /** Drains every partition of {@code plan}, in partition order. */
  public static List<List<Object>> collect(ExecutionPlan plan, TaskContext ctx) {
    List<List<Object>> rows = new ArrayList<>();
    for (int p = 0; p < plan.partitionCount(); p++) {
      rows.addAll(drain(plan.execute(p, ctx)));
    }
    return rows;
  }

  /** A task context over {@code allocator} with the given pool size, batch size and spill dir. */
  public static TaskContext context(
      BufferAllocator allocator, long pool, int batchSize, Path spill, ExecutorService executor) {
    SessionConfig config = new SessionConfig().withBatchSize(batchSize).withSpillDirectory(spill);
    return new TaskContext("test", allocator, new MemoryPool(pool), config, executor);
  }
}
