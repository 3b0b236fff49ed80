package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.settings.SessionConfig;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
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
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;

/** Test-only data builders, an in-memory source plan and a collector. */
public final class TestData {
  private TestData() {}

  /**
   * Serves fixed batches per partition; every next() hands out a new reference the caller closes.
   */
  public static class BatchesExec extends BaseExecutionPlan {
    private final List<List<VectorSchemaRoot>> partitions;

    public BatchesExec(Schema schema, List<List<VectorSchemaRoot>> partitions) {
      super(schema, List.of());
      this.partitions = partitions;
    }

    @Override
    public Partitioning outputPartitioning() {
      return Partitioning.unknown(partitions.size());
    }

    @Override
    public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
      return this;
    }

    @Override
    protected BatchStream doExecute(int partition, TaskContext context) {
      Iterator<VectorSchemaRoot> it = partitions.get(partition).iterator();
      return new BatchStream() {
        @Override
        public Schema schema() {
          return BatchesExec.this.schema();
        }

        @Override
        public VectorSchemaRoot next() {
          if (!it.hasNext()) {
            return null;
          }
          VectorSchemaRoot b = it.next();
          return Batches.slice(b, 0, b.getRowCount(), context.allocator());
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public String displayDetails() {
      return "partitions=" + partitions.size();
    }

    /** Closes every held batch. */
    public void closeAll() {
      for (List<VectorSchemaRoot> p : partitions) {
        Batches.closeAll(p);
      }
    }
  }

  public static TaskContext context(
      BufferAllocator allocator, long pool, int batchSize, Path spillDir) {
    SessionConfig config = new SessionConfig().withBatchSize(batchSize);
    if (spillDir != null) {
      config.withSpillDirectory(spillDir);
    }
    return new TaskContext("test", allocator, new MemoryPool(pool), config, null);
  }

  /** Runs every partition of {@code plan} and returns all rows as boxed values. */
  public static List<List<Object>> collect(ExecutionPlan plan, TaskContext ctx) {
    List<List<Object>> rows = new ArrayList<>();
    for (int p = 0; p < plan.partitionCount(); p++) {
      try (BatchStream s = plan.execute(p, ctx)) {
        VectorSchemaRoot b;
        while ((b = s.next()) != null) {
          try (VectorSchemaRoot owned = b) {
            rows.addAll(rows(b));
          }
        }
      }
    }
    return rows;
  }

  /** Runs every partition and returns the output batches (caller closes them). */
  public static List<VectorSchemaRoot> collectBatches(ExecutionPlan plan, TaskContext ctx) {
    List<VectorSchemaRoot> out = new ArrayList<>();
    for (int p = 0; p < plan.partitionCount(); p++) {
      try (BatchStream s = plan.execute(p, ctx)) {
        VectorSchemaRoot b;
        while ((b = s.next()) != null) {
          out.add(b);
        }
      }
    }
    return out;
  }

  public static List<List<Object>> rows(VectorSchemaRoot b) {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < b.getRowCount(); i++) {
      List<Object> row = new ArrayList<>();
      for (FieldVector v : b.getFieldVectors()) {
        Object o = v.getObject(i);
        row.add(o instanceof Text t ? t.toString() : o);
      }
      rows.add(row);
    }
    return rows;
  }

  public static ColumnExpr col(VectorSchemaRoot b, int i) {
    FieldVector v = b.getVector(i);
    return new ColumnExpr(i, v.getName(), v.getField().getType(), true);
  }

  public static ColumnExpr col(Schema s, int i) {
    return new ColumnExpr(i, s.getFields().get(i).getName(), s.getFields().get(i).getType(), true);
  }

  public static VectorSchemaRoot batch(FieldVector... cols) {
    return new VectorSchemaRoot(List.of(cols));
  }

  public static BigIntVector longs(BufferAllocator a, String name, Long... vals) {
    BigIntVector v = new BigIntVector(name, a);
    v.allocateNew(vals.length);
    for (int i = 0; i < vals.length; i++) {
      if (vals[i] == null) {
        v.setNull(i);
      } else {
        v.set(i, vals[i]);
      }
    }
    v.setValueCount(vals.length);
    return v;
  }

  public static IntVector ints(BufferAllocator a, String name, Integer... vals) {
    IntVector v = new IntVector(name, a);
    v.allocateNew(vals.length);
    for (int i = 0; i < vals.length; i++) {
      if (vals[i] == null) {
        v.setNull(i);
      } else {
        v.set(i, vals[i]);
      }
    }
    v.setValueCount(vals.length);
    return v;
  }

  public static DateDayVector dates(BufferAllocator a, String name, Integer... vals) {
    DateDayVector v = new DateDayVector(name, a);
    v.allocateNew(vals.length);
    for (int i = 0; i < vals.length; i++) {
      if (vals[i] == null) {
        v.setNull(i);
      } else {
        v.set(i, vals[i]);
      }
    }
    v.setValueCount(vals.length);
    return v;
  }

  public static Float8Vector doubles(BufferAllocator a, String name, Double... vals) {
    Float8Vector v = new Float8Vector(name, a);
    v.allocateNew(vals.length);
    for (int i = 0; i < vals.length; i++) {
      if (vals[i] == null) {
        v.setNull(i);
      } else {
        v.set(i, vals[i]);
      }
    }
    v.setValueCount(vals.length);
    return v;
  }

  public static DecimalVector decimals(
      BufferAllocator a, String name, int p, int s, String... vals) {
    DecimalVector v = new DecimalVector(name, a, p, s);
    v.allocateNew(vals.length);
    for (int i = 0; i < vals.length; i++) {
      if (vals[i] == null) {
        v.setNull(i);
      } else {
        v.set(i, new BigDecimal(vals[i]));
      }
    }
    v.setValueCount(vals.length);
    return v;
  }

  public static VarCharVector strings(BufferAllocator a, String name, String... vals) {
    VarCharVector v = new VarCharVector(name, a);
    v.allocateNew(vals.length);
    for (int i = 0; i < vals.length; i++) {
      if (vals[i] == null) {
        v.setNull(i);
      } else {
        v.setSafe(i, vals[i].getBytes(StandardCharsets.UTF_8));
      }
    }
    v.setValueCount(vals.length);
    return v;
  }

  public static BitVector bools(BufferAllocator a, String name, Boolean... vals) {
    BitVector v = new BitVector(name, a);
    v.allocateNew(vals.length);
    for (int i = 0; i < vals.length; i++) {
      if (vals[i] == null) {
        v.setNull(i);
      } else {
        v.set(i, vals[i] ? 1 : 0);
      }
    }
    v.setValueCount(vals.length);
    return v;
  }

  /** Test-only expression: {@code column > constant} over a BIGINT column. */
  public record GreaterThan(int index, long constant) implements PhysicalExpr {
    @Override
    public org.apache.arrow.vector.types.pojo.ArrowType dataType() {
      return org.apache.arrow.vector.types.pojo.ArrowType.Bool.INSTANCE;
    }

    @Override
    public boolean nullable() {
      return true;
    }

    @Override
    public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
      BigIntVector in = (BigIntVector) batch.getVector(index);
      BitVector out = new BitVector("gt", allocator);
      int n = batch.getRowCount();
      out.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (in.isNull(i)) {
          out.setNull(i);
        } else {
          out.set(i, in.get(i) > constant ? 1 : 0);
        }
      }
      out.setValueCount(n);
      return out;
    }

    @Override
    public List<PhysicalExpr> children() {
      return List.of();
    }
  }
}
