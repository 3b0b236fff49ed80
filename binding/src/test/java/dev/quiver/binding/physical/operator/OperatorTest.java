package dev.quiver.binding.physical.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.settings.SessionConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class OperatorTest {
  private static final ArrowType BIGINT = new ArrowType.Int(64, true);
  private static final Schema SCHEMA =
      new Schema(
          List.of(Field.nullable("k", BIGINT), Field.nullable("keep", ArrowType.Bool.INSTANCE)));

  private final BufferAllocator allocator = new RootAllocator();
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final TaskContext context = newContext();

  private TaskContext newContext() {
    return new TaskContext(
        "q", allocator, new MemoryPool(Long.MAX_VALUE), new SessionConfig(), executor);
  }

  @AfterEach
  void close() {
    executor.shutdownNow();
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  /** Rows k = base..base+n-1, keep = (k % 3 == 0), with a null k every 10th row. */
  private List<List<Object>> rows(long base, int n) {
    List<List<Object>> rows = new ArrayList<>();
    for (long k = base; k < base + n; k++) {
      rows.add(java.util.Arrays.asList(k % 10 == 9 ? null : k, k % 3 == 0));
    }
    return rows;
  }

  private ExecutionPlan partitions(int parts, int rowsPerPart) {
    List<ExecutionPlan> inputs = new ArrayList<>();
    for (int p = 0; p < parts; p++) {
      inputs.add(new ValuesExec(SCHEMA, rows((long) p * rowsPerPart, rowsPerPart)));
    }
    return new UnionExec(inputs);
  }

  private List<Long> collect(ExecutionPlan plan) {
    List<Long> out = new ArrayList<>();
    for (int p = 0; p < plan.partitionCount(); p++) {
      out.addAll(collectPartition(plan, p));
    }
    return out;
  }

  @Test
  void filterKeepsTrueRowsOnly() {
    ExecutionPlan plan =
        new FilterExec(
            partitions(3, 100), new ColumnExpr(1, "keep", ArrowType.Bool.INSTANCE, true));
    List<Long> got = collect(plan);
    assertThat(got).hasSize(100).allMatch(k -> k == null || k % 3 == 0);
    assertThat(got).filteredOn(k -> k == null).hasSize(10);
    assertThat(plan.metrics().outputRows()).isEqualTo(100);
  }

  @Test
  void projectionReordersAndRenames() {
    ExecutionPlan plan =
        new ProjectionExec(
            partitions(1, 5),
            List.<PhysicalExpr>of(
                new ColumnExpr(1, "keep", ArrowType.Bool.INSTANCE, true),
                new ColumnExpr(0, "k", BIGINT, true)),
            List.of("flag", "key"));
    assertThat(plan.schema().getFields()).extracting(Field::getName).containsExactly("flag", "key");
    try (BatchStream s = plan.execute(0, context);
        VectorSchemaRoot b = s.next()) {
      assertThat(((BitVector) b.getVector(0)).get(0)).isEqualTo(1);
      assertThat(((BigIntVector) b.getVector(1)).get(4)).isEqualTo(4);
    }
  }

  @Test
  void limitSkipsAndFetchesAcrossPartitionsAndBatches() {
    assertThat(collect(new LimitExec(partitions(3, 10), 5, 12)))
        .containsExactly(5L, 6L, 7L, 8L, null, 10L, 11L, 12L, 13L, 14L, 15L, 16L);
    assertThat(collect(new LimitExec(partitions(2, 10), 25, -1))).isEmpty();
    assertThat(collect(new LimitExec(partitions(2, 10), 18, -1))).containsExactly(18L, null);
  }

  @Test
  void coalesceMergesAllPartitions() {
    ExecutionPlan plan = new CoalescePartitionsExec(partitions(4, 1000));
    assertThat(plan.partitionCount()).isEqualTo(1);
    List<Long> got = collect(plan);
    assertThat(got).hasSize(4000);
    assertThat(got.stream().filter(k -> k != null).distinct().count()).isEqualTo(3600);
  }

  @Test
  void hashRepartitionSendsEqualKeysToOnePartitionAndLosesNothing() {
    ExecutionPlan input = new UnionExec(List.of(partitions(3, 500), partitions(3, 500)));
    RepartitionExec plan =
        new RepartitionExec(
            input, Partitioning.hash(List.of(new ColumnExpr(0, "k", BIGINT, true)), 4));
    Map<Long, Integer> partitionOf = new HashMap<>();
    int total = 0;
    for (int p = 0; p < 4; p++) {
      for (Long k : collectPartition(plan, p)) {
        total++;
        Integer prev = partitionOf.put(k, p);
        assertThat(prev == null || prev == p).as("key %s in two partitions", k).isTrue();
      }
    }
    assertThat(total).isEqualTo(3000);
    assertThat(partitionOf).hasSize(1351);
  }

  @Test
  void roundRobinRepartitionAndEarlyCloseFreeEverything() {
    RepartitionExec plan = new RepartitionExec(partitions(2, 20000), Partitioning.roundRobin(3));
    long rows = 0;
    for (int p = 0; p < 3; p++) {
      rows += collectPartition(plan, p).size();
    }
    assertThat(rows).isEqualTo(40000);
    // Closing a consumer before reading everything must release queued batches (in a second
    // execution: a partition runs at most once per execution).
    try (TaskContext second = newContext();
        BatchStream s = new CoalescePartitionsExec(plan).execute(0, second)) {
      s.next().close();
    }
  }

  @Test
  void closingTheTaskContextStopsExchangesWhoseOutputsWereNotAllRead() {
    RepartitionExec exchange =
        new RepartitionExec(partitions(2, 50000), Partitioning.roundRobin(4));
    assertThat(collect(new LimitExec(exchange, 0, 10))).hasSize(10);
    context.close();
    assertThat(allocator.getAllocatedMemory()).isZero();
  }

  @Test
  void emptyAndOneRowSources() {
    assertThat(collect(new EmptyExec(SCHEMA, false))).isEmpty();
    assertThat(collect(new EmptyExec(SCHEMA, true))).containsExactly((Long) null);
  }

  private List<Long> collectPartition(ExecutionPlan plan, int p) {
    List<Long> out = new ArrayList<>();
    try (BatchStream s = plan.execute(p, context)) {
      for (VectorSchemaRoot next = s.next(); next != null; next = s.next()) {
        try (VectorSchemaRoot b = next) {
          BigIntVector k = (BigIntVector) b.getVector(0);
          for (int i = 0; i < b.getRowCount(); i++) {
            out.add(k.isNull(i) ? null : k.get(i));
          }
        }
      }
    }
    return out;
  }
}
