package dev.quiver.benchmarks;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.sql.DataFrameImpl;
import dev.quiver.binding.sql.SessionState;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VectorSchemaRoot;
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
 * Aggregation over millions of groups, the shape of TPC-H Q18's aggregate by order key: {@code t(k
 * BIGINT, q DECIMAL(15,2))} with each key on {@code rowsPerKey} consecutive rows, in key order as
 * lineitem is stored. One partition aggregates it SINGLE; two aggregate it PARTIAL, repartition the
 * states by key and merge them FINAL, where nearly every row of a batch is a new group of a table
 * of millions, as after a shuffle. Returns the output row count.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "-Xmx3g",
      "-XX:ActiveProcessorCount=1"
    })
public class AggregateBenchmarks {
  private static final int BATCH = 8192;
  private static final String SQL = "SELECT k, sum(q) AS q, count(*) AS n FROM t GROUP BY k";

  /** Rows of {@code t}. */
  @Param("16000000")
  public int rows;

  /** Consecutive rows of each key: 4 like lineitem's per order, 1 for a key per row. */
  @Param("4")
  public int rowsPerKey;

  /** quiver.execution.partial_aggregation_probe_rows of the two-partition plan (0 never skips). */
  @Param("100000")
  public long probeRows;

  private final List<VectorSchemaRoot> batches = new ArrayList<>();
  private SessionContext single;
  private SessionContext shuffled;
  private SessionState singleSession;
  private SessionState shuffledSession;
  private ExecutionPlan singlePlan;
  private ExecutionPlan shuffledPlan;

  @Setup(Level.Trial)
  public void setUp() {
    single = new SessionContext(new SessionConfig().withTargetPartitions(1));
    shuffled =
        new SessionContext(
            new SessionConfig()
                .withTargetPartitions(2)
                .set(
                    BindingSettings.PARTIAL_AGGREGATION_PROBE_ROWS.key(),
                    Long.toString(probeRows)));
    BufferAllocator allocator = single.allocator();
    Schema schema =
        new Schema(
            List.of(
                Field.notNullable("k", new ArrowType.Int(64, true)),
                Field.notNullable("q", new ArrowType.Decimal(15, 2, 128))));
    for (int from = 0; from < rows; from += BATCH) {
      int n = Math.min(BATCH, rows - from);
      VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator);
      b.allocateNew();
      for (int i = 0; i < n; i++) {
        long r = from + i;
        // Order keys as TPC-H spaces them: 8 apart in blocks of 32.
        long order = r / rowsPerKey;
        ((BigIntVector) b.getVector(0)).setSafe(i, (order / 8) * 32 + order % 8 + 1);
        ((DecimalVector) b.getVector(1)).setSafe(i, BigDecimal.valueOf(100 + r % 4900, 2));
      }
      b.setRowCount(n);
      batches.add(b);
    }
    single.registerRecordBatches("t", schema, batches);
    shuffled.registerRecordBatches("t", schema, batches);
    DataFrameImpl s = (DataFrameImpl) single.sql(SQL);
    singleSession = s.session();
    singlePlan = singleSession.physicalPlan(singleSession.logicalPlan(s.rel()));
    DataFrameImpl p = (DataFrameImpl) shuffled.sql(SQL);
    shuffledSession = p.session();
    shuffledPlan = shuffledSession.physicalPlan(shuffledSession.logicalPlan(p.rel()));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    batches.forEach(VectorSchemaRoot::close);
    shuffled.close();
    single.close();
  }

  /** One partition: a SINGLE aggregate of every row. */
  @Benchmark
  public long singleByOrderKey() {
    return OperatorBenchmarks.run(singleSession, singlePlan);
  }

  /** Two partitions: PARTIAL, a repartition by key, FINAL. */
  @Benchmark
  public long partialThenFinalByOrderKey() {
    return OperatorBenchmarks.run(shuffledSession, shuffledPlan);
  }
}
