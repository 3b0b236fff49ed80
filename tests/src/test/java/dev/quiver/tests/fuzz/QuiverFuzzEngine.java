package dev.quiver.tests.fuzz;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskSummary;
import dev.quiver.tests.QueryResult;
import dev.quiver.tests.Values;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Quiver over memory tables (CREATE TABLE and INSERT), in process or on an embedded cluster. Every
 * query must give back all the memory it took from the session's allocator.
 */
final class QuiverFuzzEngine implements FuzzEngine {
  private final String name;
  private final SessionContext ctx;
  private final AutoCloseable owner;
  private long baseline = -1;
  private int partitions = -1;
  private int batchSize = -1;
  // Distributed jobs the cluster ran: all, with several stages, on several executors.
  private final AtomicLong jobs = new AtomicLong();
  private final AtomicLong multiStageJobs = new AtomicLong();
  private final AtomicLong multiExecutorJobs = new AtomicLong();

  private QuiverFuzzEngine(String name, SessionContext ctx, AutoCloseable owner) {
    this.name = name;
    this.ctx = ctx;
    this.owner = owner;
  }

  /** The plain binding, in process. */
  static QuiverFuzzEngine local() {
    return new QuiverFuzzEngine(
        "quiver", new SessionContext(unnesting(new SessionConfig())), () -> {});
  }

  /**
   * A decorated session on a new embedded cluster of {@code executors} executors (stopped on
   * close); tasks read at most {@code bytesPerTask} each, so even small tables run as several.
   */
  static QuiverFuzzEngine embeddedCluster(int executors, String bytesPerTask) {
    SessionConfig config =
        new SessionConfig().set(DistributedSettings.BYTES_PER_TASK, bytesPerTask);
    // -Dfuzz.runtime_filter_bytes=1 makes every runtime filter whose keys input wrote a row a
    // Bloom filter; -Dfuzz.broadcast_threshold_rows=0 shuffles both sides of every join.
    String filterBytes = System.getProperty("fuzz.runtime_filter_bytes", "").strip();
    if (!filterBytes.isEmpty()) {
      config.set(DistributedSettings.RUNTIME_FILTER_BYTES, filterBytes);
    }
    String broadcastRows = System.getProperty("fuzz.broadcast_threshold_rows", "").strip();
    if (!broadcastRows.isEmpty()) {
      config.set(DistributedSettings.BROADCAST_THRESHOLD_ROWS, broadcastRows);
    }
    Injector injector =
        Guice.createInjector(new EmbeddedClusterModule(executors, unnesting(config)));
    ClusterLifecycle lifecycle = injector.getInstance(ClusterLifecycle.class);
    try {
      ClusterRuntime runtime = lifecycle.start();
      SessionContext ctx = injector.getInstance(SessionContext.class);
      QuiverFuzzEngine engine = new QuiverFuzzEngine("quiver-cluster" + executors, ctx, lifecycle);
      runtime.addJobListener(
          (graph, status) -> {
            Set<String> executorIds = new HashSet<>();
            for (StageStatus stage : status.getStagesList()) {
              for (TaskSummary task : stage.getTasksList()) {
                executorIds.add(task.getExecutorId());
              }
            }
            engine.jobs.incrementAndGet();
            if (status.getStagesCount() > 1) {
              engine.multiStageJobs.incrementAndGet();
            }
            if (executorIds.size() > 1) {
              engine.multiExecutorJobs.incrementAndGet();
            }
          });
      return engine;
    } catch (RuntimeException e) {
      lifecycle.close();
      throw e;
    }
  }

  /** {@code config} with {@code -Dfuzz.unnesting} (calcite or quiver) when set. */
  private static SessionConfig unnesting(SessionConfig config) {
    String unnesting = System.getProperty("fuzz.unnesting", "").strip();
    return unnesting.isEmpty() ? config : config.set(BindingSettings.UNNESTING.key(), unnesting);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void execute(String sql) {
    // DDL, DML and SET run when planned.
    ctx.sql(sql);
    baseline = ctx.allocator().getAllocatedMemory();
  }

  @Override
  public String stats() {
    return jobs.get() == 0
        ? ""
        : name
            + " ran "
            + jobs.get()
            + " jobs, "
            + multiStageJobs.get()
            + " of several stages, "
            + multiExecutorJobs.get()
            + " on both executors";
  }

  @Override
  public void configure(int partitions, int batchSize) {
    if (partitions != this.partitions) {
      execute("SET " + SessionConfig.TARGET_PARTITIONS + " = " + partitions);
      this.partitions = partitions;
    }
    if (batchSize != this.batchSize) {
      execute("SET " + SessionConfig.BATCH_SIZE + " = " + batchSize);
      this.batchSize = batchSize;
    }
  }

  @Override
  public QueryResult query(String sql) {
    DataFrame df = ctx.sql(sql);
    Schema expected = df.schema();
    List<VectorSchemaRoot> batches = df.collect();
    QueryResult result;
    try {
      List<String> columns = new ArrayList<>();
      List<Boolean> floating = new ArrayList<>();
      for (Field f : expected.getFields()) {
        columns.add(f.getName());
        floating.add(Values.isFloating(f.getType()));
      }
      List<List<Object>> rows = new ArrayList<>();
      for (VectorSchemaRoot batch : batches) {
        if (batch.getSchema().getFields().size() != columns.size()) {
          throw new AssertionError(
              "a batch has schema " + batch.getSchema() + ", the query's is " + expected);
        }
        List<FieldVector> vectors = batch.getFieldVectors();
        for (int r = 0; r < batch.getRowCount(); r++) {
          List<Object> row = new ArrayList<>(vectors.size());
          for (FieldVector v : vectors) {
            row.add(Values.fromArrow(v, r));
          }
          rows.add(row);
        }
      }
      result = new QueryResult(columns, floating, rows);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    long outstanding = ctx.allocator().getAllocatedMemory();
    if (baseline >= 0 && outstanding != baseline) {
      long leaked = outstanding - baseline;
      baseline = outstanding;
      throw new LeakError("Quiver left " + leaked + " bytes allocated after the query");
    }
    return result;
  }

  /** A query that did not give back all its memory. */
  static final class LeakError extends AssertionError {
    private static final long serialVersionUID = 1L;

    LeakError(String message) {
      super(message);
    }
  }

  @Override
  public void close() {
    try {
      ctx.close();
    } finally {
      try {
        owner.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing " + name + " failed", e);
      }
    }
  }
}
