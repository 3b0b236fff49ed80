package dev.quiver.distributed.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.Extension;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.planner.PlanFormatter;
import dev.quiver.binding.planner.QueryPlanner;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.udf.ScalarUdf;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A session whose planner can push every physical plan through the codec: it records the plan the
 * binding made, encodes it, decodes it (as an executor would) and runs the decoded plan instead.
 */
final class RoundTripSession implements AutoCloseable {
  final SessionContext session;
  final PlanCodec codec = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
  final BufferAllocator decodeAllocator;
  final Map<String, ScalarUdf> executorUdfs = new HashMap<>();
  private final List<DecodedStage> decoded = new ArrayList<>();
  private boolean roundTrip;
  ExecutionPlan original;
  ExecutionPlan copy;
  byte[] bytes;

  RoundTripSession(SessionConfig config) {
    session = new SessionContext(config);
    decodeAllocator = session.allocator().newChildAllocator("decoded-stages", 0, Long.MAX_VALUE);
    session.withExtensions(
        new Extension() {
          @Override
          public QueryPlanner queryPlanner(QueryPlanner current) {
            return (logical, context) -> plan(current.createPhysicalPlan(logical, context));
          }
        });
  }

  private ExecutionPlan plan(ExecutionPlan plan) {
    original = plan;
    if (!roundTrip) {
      return plan;
    }
    bytes = codec.encodeStage(new StagePlan(plan, Partitioning.single()));
    DecodedStage stage = codec.decode(bytes, context());
    decoded.add(stage);
    copy = stage.plan().root();
    return copy;
  }

  DecodeContext context() {
    return new DecodeContext(
        decodeAllocator, List.of(), null, name -> Optional.ofNullable(executorUdfs.get(name)));
  }

  /** Plans {@code sql} without running it and returns the binding's physical plan. */
  ExecutionPlan physicalPlan(String sql) {
    roundTrip = false;
    session.sql(sql).explain();
    return original;
  }

  /**
   * Runs {@code sql} plainly and through the codec; checks the plans print alike, re-encode to the
   * same bytes and give the same rows (in order when {@code ordered}). Returns the bytes.
   */
  byte[] check(String sql, boolean ordered) {
    return check(sql, () -> session.sql(sql), ordered);
  }

  /** Like {@link #check(String, boolean)} for a DataFrame built by {@code query}. */
  byte[] check(String sql, Supplier<DataFrame> query, boolean ordered) {
    roundTrip = true;
    List<String> viaCodec = rows(query.get());
    ExecutionPlan planned = original;
    ExecutionPlan decodedPlan = copy;
    byte[] encoded = bytes;
    roundTrip = false;
    List<String> plain = rows(query.get());
    assertThat(PlanFormatter.format(decodedPlan, false))
        .as("decoded plan of: %s", sql)
        .isEqualTo(PlanFormatter.format(planned, false));
    assertThat(codec.encodeStage(new StagePlan(decodedPlan, Partitioning.single())))
        .as("re-encoded decoded plan of: %s", sql)
        .isEqualTo(encoded);
    if (ordered) {
      assertThat(viaCodec).as("rows of: %s", sql).isEqualTo(plain);
    } else {
      assertThat(viaCodec).as("rows of: %s", sql).containsExactlyInAnyOrderElementsOf(plain);
    }
    return encoded;
  }

  /**
   * Round-trips a hand-built plan: checks it prints alike, re-encodes to the same bytes and that
   * running every partition of both gives the same rows. Returns the bytes.
   */
  byte[] checkPlan(ExecutionPlan plan) {
    byte[] encoded = codec.encodeStage(new StagePlan(plan, Partitioning.single()));
    try (DecodedStage stage = codec.decode(encoded, context())) {
      ExecutionPlan back = stage.plan().root();
      assertThat(PlanFormatter.format(back, false)).isEqualTo(PlanFormatter.format(plan, false));
      assertThat(codec.encodeStage(stage.plan())).isEqualTo(encoded);
      assertThat(execute(back)).containsExactlyInAnyOrderElementsOf(execute(plan));
    }
    return encoded;
  }

  /** Runs every partition of {@code plan} directly; returns the rows as strings. */
  List<String> execute(ExecutionPlan plan) {
    ExecutorService pool = Executors.newCachedThreadPool();
    List<String> out = new ArrayList<>();
    try (BufferAllocator allocator =
            session.allocator().newChildAllocator("direct", 0, Long.MAX_VALUE);
        TaskContext task =
            new TaskContext(
                "direct", allocator, new MemoryPool(Long.MAX_VALUE), session.config(), pool)) {
      for (int p = 0; p < plan.partitionCount(); p++) {
        try (BatchStream stream = plan.execute(p, task)) {
          for (VectorSchemaRoot b = stream.next(); b != null; b = stream.next()) {
            try (VectorSchemaRoot batch = b) {
              out.addAll(rows(batch));
            }
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return out;
  }

  private static List<String> rows(VectorSchemaRoot b) {
    List<String> out = new ArrayList<>();
    for (int r = 0; r < b.getRowCount(); r++) {
      List<String> cells = new ArrayList<>();
      for (FieldVector v : b.getFieldVectors()) {
        Object o = v.getObject(r);
        cells.add(o == null ? "null" : o.toString());
      }
      out.add(String.join("|", cells));
    }
    return out;
  }

  /** A query's rows as strings; the batches are closed. */
  static List<String> rows(DataFrame df) {
    List<VectorSchemaRoot> batches = df.collect();
    List<String> out = new ArrayList<>();
    try {
      for (VectorSchemaRoot b : batches) {
        out.addAll(rows(b));
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    return out;
  }

  /** Releases decoded stages, checks nothing is left allocated, closes the session. */
  @Override
  public void close() {
    decoded.forEach(DecodedStage::close);
    decoded.clear();
    assertThat(decodeAllocator.getAllocatedMemory()).isZero();
    decodeAllocator.close();
    assertThat(session.allocator().getChildAllocators())
        .noneMatch(a -> a.getName().contains("query-"));
    session.close();
  }
}
