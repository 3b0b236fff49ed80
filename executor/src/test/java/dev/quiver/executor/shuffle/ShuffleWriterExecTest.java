package dev.quiver.executor.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.scan.MemoryScanExec;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.wire.ShuffleTickets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class ShuffleWriterExecTest {

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.nullable("k", new ArrowType.Int(64, true)),
              Field.nullable("s", ArrowType.Utf8.INSTANCE)));
  private static final PhysicalExpr K = new ColumnExpr(0, "k", new ArrowType.Int(64, true), true);
  private static final PhysicalExpr S = new ColumnExpr(1, "s", ArrowType.Utf8.INSTANCE, true);

  @TempDir Path workDir;

  private final BufferAllocator allocator = new RootAllocator();
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<VectorSchemaRoot> tables = new ArrayList<>();
  private ShuffleStore store;

  @BeforeEach
  void open() throws Exception {
    store = new ShuffleStore(allocator, workDir, 1L << 20);
  }

  @AfterEach
  void close() {
    tables.forEach(VectorSchemaRoot::close);
    store.close();
    threads.shutdownNow();
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  /**
   * A scan of {@code batches} batches of {@code rows} rows each: keys {@code i % 13} with every
   * 10th null, and a string of the key.
   */
  private ExecutionPlan scan(int batches, int rows) {
    List<VectorSchemaRoot> data = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
      BigIntVector k = (BigIntVector) root.getVector(0);
      VarCharVector s = (VarCharVector) root.getVector(1);
      k.allocateNew(rows);
      s.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        long key = (b * 100L + i) % 13;
        if (i % 10 == 9) {
          k.setNull(i);
        } else {
          k.set(i, key);
        }
        s.setSafe(i, ("v" + key % 5).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      root.setRowCount(rows);
      data.add(root);
      tables.add(root);
    }
    return new MemoryScanExec(SCHEMA, data, null, OptionalLong.empty(), 1, 64);
  }

  private ShuffleWriterExec writer(
      ExecutionPlan input, Partitioning output, int partitions, int taskId) {
    return new ShuffleWriterExec(
        input, output, partitions, new ShuffleWriterExec.Destination(store, "j", 1, taskId, null));
  }

  /** Runs partition 0 of {@code plan} to the end; returns the rows it returned. */
  private long run(ExecutionPlan plan, int partition, Consumer<VectorSchemaRoot> each) {
    long rows = 0;
    try (TaskContext ctx =
            new TaskContext("q", allocator, new MemoryPool(1 << 20), new SessionConfig(), threads);
        BatchStream stream = plan.execute(partition, ctx)) {
      VectorSchemaRoot batch;
      while ((batch = stream.next()) != null) {
        try (VectorSchemaRoot owned = batch) {
          rows += owned.getRowCount();
          each.accept(owned);
        }
      }
    }
    return rows;
  }

  /** "key|string" of every row of {@code batch}, with null keys as "null". */
  private static List<String> keysOf(VectorSchemaRoot batch) {
    List<String> keys = new ArrayList<>();
    BigIntVector k = (BigIntVector) batch.getVector(0);
    VarCharVector s = (VarCharVector) batch.getVector(1);
    for (int i = 0; i < batch.getRowCount(); i++) {
      keys.add((k.isNull(i) ? "null" : Long.toString(k.get(i))) + "|" + s.getObject(i));
    }
    return keys;
  }

  /** The rows of one output partition of {@code task}. */
  private List<String> read(int task, int partition) throws Exception {
    List<String> keys = new ArrayList<>();
    try (PartitionReader reader =
            store.open(ShuffleTickets.id("j", 1, task, partition), allocator).orElseThrow();
        VectorSchemaRoot root = VectorSchemaRoot.create(reader.schema(), allocator)) {
      while (reader.loadNext(root)) {
        keys.addAll(keysOf(root));
      }
    }
    return keys;
  }

  @Test
  void hashKeepsEqualKeysTogetherCountsAsAnOperatorAndReturnsNoRows() throws Exception {
    ShuffleWriterExec w = writer(scan(5, 100), Partitioning.hash(List.of(K), 4), 4, 0);
    assertThat(run(w, 0, b -> {})).isZero();
    assertThat(w.rows()).isEqualTo(500);
    assertThat(w.bytes()).isPositive();
    assertThat(w.partitionRows().stream().mapToLong(Long::longValue).sum()).isEqualTo(500);
    assertThat(w.partitionBytes().stream().mapToLong(Long::longValue).sum()).isEqualTo(w.bytes());
    assertThat(w.metrics().outputRows()).isEqualTo(500);
    assertThat(w.metrics().outputBatches()).isGreaterThanOrEqualTo(4);
    Map<String, Integer> partitionOf = new HashMap<>();
    int total = 0;
    for (int p = 0; p < 4; p++) {
      List<String> rows = read(0, p);
      assertThat((long) rows.size()).isEqualTo(w.partitionRows().get(p));
      for (String row : rows) {
        String key = row.substring(0, row.indexOf('|'));
        Integer earlier = partitionOf.putIfAbsent(key, p);
        assertThat(earlier == null ? p : earlier).as("partition of key %s", key).isEqualTo(p);
        total++;
      }
    }
    assertThat(total).isEqualTo(500);
    // 13 keys plus null, each in exactly one partition.
    assertThat(partitionOf).hasSize(14);
  }

  /**
   * Shuffle readers and co-partitioned joins rely on a stage's output partitions holding the rows a
   * repartition inside a process would put there.
   */
  @Test
  void hashRoutesEveryRowWhereRepartitionExecDoes() throws Exception {
    for (int partitions : new int[] {2, 3, 7}) {
      Partitioning hash = Partitioning.hash(List.of(K, S), partitions);
      store.removeTask("j", 1, 0);
      run(writer(scan(3, 50), hash, partitions, 0), 0, b -> {});
      RepartitionExec repartition = new RepartitionExec(scan(3, 50), hash);
      try (TaskContext ctx =
          new TaskContext("q", allocator, new MemoryPool(1 << 20), new SessionConfig(), threads)) {
        for (int p = 0; p < partitions; p++) {
          List<String> expected = new ArrayList<>();
          try (BatchStream s = repartition.execute(p, ctx)) {
            VectorSchemaRoot b;
            while ((b = s.next()) != null) {
              try (VectorSchemaRoot owned = b) {
                expected.addAll(keysOf(owned));
              }
            }
          }
          assertThat(read(0, p))
              .as("partition %d of %d", p, partitions)
              .containsExactlyInAnyOrderElementsOf(expected);
        }
      }
    }
  }

  @Test
  void roundRobinDealsBatchesFromTheTasksOwnPartitionAndSingleUsesPartitionZero() throws Exception {
    // Task 1 deals its five 60-row batches to partitions 1, 2, 0, 1, 2.
    ShuffleWriterExec rr = writer(scan(1, 300), Partitioning.roundRobin(3), 3, 1);
    run(rr, 0, b -> {});
    assertThat(rr.partitionRows()).containsExactly(60L, 120L, 120L);
    assertThat(read(1, 0)).hasSize(60);

    ShuffleWriterExec single = writer(scan(1, 7), Partitioning.single(), 2, 0);
    run(single, 0, b -> {});
    assertThat(read(0, 0)).hasSize(7);
    assertThat(read(0, 1)).isEmpty();
  }

  @Test
  void noRowsStillCompletesEveryPartitionAndUnknownOutputIsRefused() throws Exception {
    ShuffleWriterExec w = writer(scan(1, 0), Partitioning.hash(List.of(K), 2), 2, 0);
    run(w, 0, b -> {});
    assertThat(read(0, 0)).isEmpty();
    assertThat(read(0, 1)).isEmpty();
    assertThat(w.rows()).isZero();
    assertThatThrownBy(() -> writer(scan(1, 1), Partitioning.unknown(2), 2, 0))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("HASH, ROUND_ROBIN or SINGLE");
  }

  @Test
  void theObserverSeesEveryRowBeforeItIsWritten() {
    List<String> seen = new ArrayList<>();
    ShuffleWriterExec w =
        new ShuffleWriterExec(
            scan(2, 40),
            Partitioning.hash(List.of(K), 3),
            3,
            new ShuffleWriterExec.Destination(store, "j", 1, 0, null),
            batch -> seen.addAll(keysOf(batch)));
    run(w, 0, b -> {});
    assertThat(seen).hasSize(80);
  }

  @Test
  void removeTaskDropsOnlyThatTasksOutput() {
    run(writer(scan(1, 5), Partitioning.single(), 1, 0), 0, b -> {});
    run(writer(scan(1, 5), Partitioning.single(), 1, 1), 0, b -> {});
    assertThat(store.removeTask("j", 1, 0).partitions()).isEqualTo(1);
    assertThat(store.partitionCount()).isEqualTo(1);
    assertThat(store.open(ShuffleTickets.id("j", 1, 1, 0), allocator))
        .isPresent()
        .get()
        .satisfies(r -> r.close());
  }
}
