package dev.quiver.benchmarks;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.sql.DataFrameImpl;
import dev.quiver.binding.sql.QueryExecution;
import dev.quiver.binding.sql.SessionState;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The binding's operators on one partition over in-memory Arrow batches: each benchmark runs a
 * physical plan planned once in setup, so that Calcite's planning is not measured, and returns the
 * output row count.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx4g"})
public class OperatorBenchmarks {
  private static final int BATCH = 8192;

  /** Rows of the fact table {@code t}; the dimension {@code dim} has a tenth as many. */
  @Param("1000000")
  public int rows;

  private SessionContext ctx;
  private final List<VectorSchemaRoot> tables = new ArrayList<>();
  private SessionState session;
  private ExecutionPlan filter;
  private ExecutionPlan projectDouble;
  private ExecutionPlan projectDecimal;
  private ExecutionPlan aggregate;
  private ExecutionPlan join;
  private ExecutionPlan sort;

  /** Registers {@code t(k BIGINT, v DOUBLE, d DECIMAL(15,2), s VARCHAR)} and {@code dim}. */
  @Setup(Level.Trial)
  public void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(1));
    BufferAllocator allocator = ctx.allocator();
    Schema fact =
        new Schema(
            List.of(
                Field.notNullable("k", new ArrowType.Int(64, true)),
                Field.notNullable("v", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Field.notNullable("d", new ArrowType.Decimal(15, 2, 128)),
                Field.notNullable("s", ArrowType.Utf8.INSTANCE)));
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int from = 0; from < rows; from += BATCH) {
      int n = Math.min(BATCH, rows - from);
      VectorSchemaRoot b = VectorSchemaRoot.create(fact, allocator);
      b.allocateNew();
      for (int i = 0; i < n; i++) {
        long r = from + i;
        long mixed = (r * 2_654_435_761L) & 0x7fffffff;
        ((BigIntVector) b.getVector(0)).setSafe(i, mixed % (rows / 10));
        ((Float8Vector) b.getVector(1)).setSafe(i, (mixed % 100_000) / 100.0);
        ((DecimalVector) b.getVector(2)).setSafe(i, BigDecimal.valueOf(mixed % 1_000_000, 2));
        ((VarCharVector) b.getVector(3)).setSafe(i, ("s" + (mixed % 1000)).getBytes());
      }
      b.setRowCount(n);
      batches.add(b);
    }
    ctx.registerRecordBatches("t", fact, batches);
    tables.addAll(batches);
    Schema dimSchema =
        new Schema(
            List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                Field.notNullable("w", new ArrowType.Int(64, true))));
    List<VectorSchemaRoot> dims = new ArrayList<>();
    int dimRows = rows / 10;
    for (int from = 0; from < dimRows; from += BATCH) {
      int n = Math.min(BATCH, dimRows - from);
      VectorSchemaRoot b = VectorSchemaRoot.create(dimSchema, allocator);
      b.allocateNew();
      for (int i = 0; i < n; i++) {
        ((BigIntVector) b.getVector(0)).setSafe(i, from + i);
        ((BigIntVector) b.getVector(1)).setSafe(i, (from + i) % 7);
      }
      b.setRowCount(n);
      dims.add(b);
    }
    ctx.registerRecordBatches("dim", dimSchema, dims);
    tables.addAll(dims);

    filter = plan("SELECT k, v FROM t WHERE v < 250.0 AND k > 1000");
    projectDouble = plan("SELECT v * 1.07 + v / 3.0 - 2.5 AS x FROM t");
    projectDecimal = plan("SELECT d * 3 + d - CAST(1.25 AS DECIMAL(15, 2)) AS x FROM t");
    aggregate = plan("SELECT k, sum(v) AS sv, count(*) AS c FROM t GROUP BY k");
    join = plan("SELECT t.v, dim.w FROM t JOIN dim ON t.k = dim.id");
    sort = plan("SELECT k, v FROM t ORDER BY v, k");
  }

  private ExecutionPlan plan(String sql) {
    DataFrameImpl df = (DataFrameImpl) ctx.sql(sql);
    session = df.session();
    return session.physicalPlan(session.logicalPlan(df.rel()));
  }

  private long run(ExecutionPlan plan) {
    return run(session, plan);
  }

  /** Runs a plan to the end, closing each batch; returns the rows it produced. */
  static long run(SessionState session, ExecutionPlan plan) {
    long out = 0;
    try (QueryExecution q = session.execute(plan)) {
      VectorSchemaRoot b;
      while ((b = q.next()) != null) {
        out += b.getRowCount();
        b.close();
      }
    }
    return out;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    tables.forEach(VectorSchemaRoot::close);
    ctx.close();
  }

  @Benchmark
  public long filter() {
    return run(filter);
  }

  @Benchmark
  public long projectionDouble() {
    return run(projectDouble);
  }

  @Benchmark
  public long projectionDecimal() {
    return run(projectDecimal);
  }

  @Benchmark
  public long hashAggregate() {
    return run(aggregate);
  }

  @Benchmark
  public long hashJoinBuildAndProbe() {
    return run(join);
  }

  @Benchmark
  public long sort() {
    return run(sort);
  }
}
