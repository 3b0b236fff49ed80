package dev.quiver.executor;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.scan.MemoryScanExec;
import dev.quiver.distributed.codec.DecodeContext;
import dev.quiver.distributed.codec.DecodedStage;
import dev.quiver.distributed.codec.PlanCodecException;
import dev.quiver.distributed.codec.StageDecoder;
import dev.quiver.distributed.codec.StagePlan;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A stage decoder for tests: plans are built by hand and looked up by their "bytes" (a name), the
 * way the plan codec would rebuild them. Rows are (key BIGINT, value BIGINT).
 */
final class TestPlans implements StageDecoder {

  static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("key", new ArrowType.Int(64, true)),
              Field.notNullable("value", new ArrowType.Int(64, true))));

  static final ColumnExpr KEY = new ColumnExpr(0, "key", new ArrowType.Int(64, true), false);
  static final ColumnExpr VALUE = new ColumnExpr(1, "value", new ArrowType.Int(64, true), false);

  /** Distinct keys in generated rows. */
  static final int KEYS = 37;

  private final Map<String, Function<DecodeContext, DecodedStage>> plans =
      new ConcurrentHashMap<>();

  /** Registers a plan under {@code name}; launch it with {@code name} as plan bytes. */
  TestPlans add(String name, Function<DecodeContext, DecodedStage> plan) {
    plans.put(name, plan);
    return this;
  }

  @Override
  public DecodedStage decode(byte[] bytes, DecodeContext context) {
    String name = new String(bytes, StandardCharsets.UTF_8);
    Function<DecodeContext, DecodedStage> plan = plans.get(name);
    if (plan == null) {
      throw new PlanCodecException("unknown test plan '" + name + "'");
    }
    return plan.apply(context);
  }

  /** Value of row {@code i} of task {@code task}: unique over all tasks. */
  static long value(int task, int i) {
    return task * 1_000_000L + i;
  }

  /** Key of a value: {@code KEYS} distinct keys, each repeated. */
  static long key(long value) {
    return value % KEYS;
  }

  /** One batch of {@code rows} rows of task {@code task}, allocated from {@code allocator}. */
  static VectorSchemaRoot batch(BufferAllocator allocator, int task, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector key = (BigIntVector) root.getVector(0);
    BigIntVector value = (BigIntVector) root.getVector(1);
    key.allocateNew(rows);
    value.allocateNew(rows);
    for (int i = 0; i < rows; i++) {
      long v = value(task, i);
      key.set(i, key(v));
      value.set(i, v);
    }
    root.setRowCount(rows);
    return root;
  }

  /**
   * A memory-table scan with one batch of {@code rows} rows per task, shipped with the plan (the
   * batches live in the task's allocator until the decoded stage is closed).
   */
  static Function<DecodeContext, DecodedStage> scan(int tasks, int rows, Partitioning output) {
    return ctx -> {
      List<VectorSchemaRoot> batches = new ArrayList<>();
      for (int t = 0; t < tasks; t++) {
        batches.add(batch(ctx.allocator(), t, rows));
      }
      ExecutionPlan root =
          new MemoryScanExec(SCHEMA, batches, null, OptionalLong.empty(), tasks, rows);
      return new DecodedStage(new StagePlan(root, output), batches);
    };
  }

  static Partitioning hashOnKey(int partitions) {
    return Partitioning.hash(List.<PhysicalExpr>of(KEY), partitions);
  }

  /** Counts streams open at once, to check how many tasks run concurrently. */
  static final class Concurrency {
    final AtomicInteger now = new AtomicInteger();
    final AtomicInteger max = new AtomicInteger();
    final AtomicInteger started = new AtomicInteger();
  }

  /**
   * A source of {@code partitions} partitions, each producing {@code batches} batches of {@code
   * rows} rows (Long.MAX_VALUE: until cancelled), pausing {@code pauseMillis} before each.
   */
  static final class GeneratorExec extends BaseExecutionPlan {
    private final int partitions;
    private final long batches;
    private final int rows;
    private final long pauseMillis;
    private final Concurrency concurrency;

    GeneratorExec(
        int partitions, long batches, int rows, long pauseMillis, Concurrency concurrency) {
      super(SCHEMA, List.of());
      this.partitions = partitions;
      this.batches = batches;
      this.rows = rows;
      this.pauseMillis = pauseMillis;
      this.concurrency = concurrency;
    }

    @Override
    public Partitioning outputPartitioning() {
      return Partitioning.unknown(partitions);
    }

    @Override
    public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
      return this;
    }

    @Override
    public String displayDetails() {
      return "partitions=" + partitions + ", batches=" + batches;
    }

    @Override
    protected BatchStream doExecute(int partition, TaskContext context) {
      concurrency.started.incrementAndGet();
      int open = concurrency.now.incrementAndGet();
      concurrency.max.accumulateAndGet(open, Math::max);
      return new BatchStream() {
        private long produced;
        private boolean closed;

        @Override
        public Schema schema() {
          return SCHEMA;
        }

        @Override
        public VectorSchemaRoot next() {
          if (produced == batches) {
            return null;
          }
          if (pauseMillis > 0) {
            try {
              Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException("interrupted", e);
            }
          }
          produced++;
          return batch(context.allocator(), partition, rows);
        }

        @Override
        public void close() {
          if (!closed) {
            closed = true;
            concurrency.now.decrementAndGet();
          }
        }
      };
    }
  }
}
