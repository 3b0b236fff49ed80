package dev.quiver.executor.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.executor.shuffle.PartitionReader;
import dev.quiver.executor.shuffle.ShuffleStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
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
class ShuffleWriterTest {

  private static final Schema SCHEMA =
      new Schema(List.of(Field.nullable("k", new ArrowType.Int(64, true))));
  private static final PhysicalExpr K = new ColumnExpr(0, "k", new ArrowType.Int(64, true), true);

  @TempDir Path workDir;

  private final BufferAllocator allocator = new RootAllocator();
  private ShuffleStore store;

  @BeforeEach
  void open() throws Exception {
    store = new ShuffleStore(allocator, workDir, 1L << 20);
  }

  @AfterEach
  void close() {
    store.close();
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  /** A batch of keys {@code from..from+rows-1}, with every 10th row null. */
  private VectorSchemaRoot batch(long from, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector k = (BigIntVector) root.getVector(0);
    k.allocateNew(rows);
    for (int i = 0; i < rows; i++) {
      if (i % 10 == 9) {
        k.setNull(i);
      } else {
        k.set(i, (from + i) % 13);
      }
    }
    root.setRowCount(rows);
    return root;
  }

  /** Keys (null as Long.MIN_VALUE) of every row of one partition of task 0. */
  private List<Long> read(int partition) throws Exception {
    List<Long> keys = new ArrayList<>();
    try (PartitionReader reader =
            store.open(ShuffleTickets.id("j", 1, 0, partition), allocator).orElseThrow();
        VectorSchemaRoot root = VectorSchemaRoot.create(reader.schema(), allocator)) {
      while (reader.loadNext(root)) {
        BigIntVector k = (BigIntVector) root.getVector(0);
        for (int i = 0; i < root.getRowCount(); i++) {
          keys.add(k.isNull(i) ? Long.MIN_VALUE : k.get(i));
        }
      }
    }
    return keys;
  }

  private ShuffleWriter writer(Partitioning output, int partitions) {
    return new ShuffleWriter(store, "j", 1, 0, output, partitions, SCHEMA, allocator);
  }

  @Test
  void hashKeepsEqualKeysTogetherAndLosesNoRow() throws Exception {
    ShuffleWriter w = writer(Partitioning.hash(List.of(K), 4), 4);
    for (int b = 0; b < 5; b++) {
      try (VectorSchemaRoot batch = batch(b * 100L, 100)) {
        w.write(batch);
      }
    }
    w.finish();
    assertThat(w.rows()).isEqualTo(500);
    assertThat(w.bytes()).isPositive();
    Map<Long, Integer> partitionOf = new HashMap<>();
    int total = 0;
    for (int p = 0; p < 4; p++) {
      for (long key : read(p)) {
        Integer earlier = partitionOf.putIfAbsent(key, p);
        assertThat(earlier == null ? p : earlier).as("partition of key %d", key).isEqualTo(p);
        total++;
      }
    }
    assertThat(total).isEqualTo(500);
    // 13 keys plus null, each in exactly one partition.
    assertThat(partitionOf).hasSize(14);
  }

  @Test
  void roundRobinDealsBatchesInTurnAndSingleUsesPartitionZero() throws Exception {
    ShuffleWriter rr = writer(Partitioning.roundRobin(3), 3);
    for (int b = 0; b < 4; b++) {
      try (VectorSchemaRoot batch = batch(0, 10 + b)) {
        rr.write(batch);
      }
    }
    rr.finish();
    assertThat(read(0)).hasSize(10 + 13);
    assertThat(read(1)).hasSize(11);
    assertThat(read(2)).hasSize(12);

    store.removeTask("j", 1, 0);
    ShuffleWriter single = writer(Partitioning.single(), 2);
    try (VectorSchemaRoot batch = batch(0, 7)) {
      single.write(batch);
    }
    single.finish();
    assertThat(read(0)).hasSize(7);
    assertThat(read(1)).isEmpty();
  }

  @Test
  void noRowsStillCompletesEveryPartitionAndUnknownOutputIsRefused() throws Exception {
    ShuffleWriter w = writer(Partitioning.hash(List.of(K), 2), 2);
    try (VectorSchemaRoot empty = batch(0, 0)) {
      w.write(empty);
    }
    w.finish();
    assertThat(read(0)).isEmpty();
    assertThat(read(1)).isEmpty();
    assertThat(w.rows()).isZero();
    assertThatThrownBy(() -> writer(Partitioning.unknown(2), 2))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("HASH, ROUND_ROBIN or SINGLE");
  }

  @Test
  void removeTaskDropsOnlyThatTasksOutput() {
    ShuffleWriter w = writer(Partitioning.single(), 1);
    try (VectorSchemaRoot batch = batch(0, 5)) {
      w.write(batch);
    }
    w.finish();
    ShuffleWriter other =
        new ShuffleWriter(store, "j", 1, 1, Partitioning.single(), 1, SCHEMA, allocator);
    try (VectorSchemaRoot batch = batch(0, 5)) {
      other.write(batch);
    }
    other.finish();
    assertThat(store.removeTask("j", 1, 0).partitions()).isEqualTo(1);
    assertThat(store.partitionCount()).isEqualTo(1);
    assertThat(store.open(ShuffleTickets.id("j", 1, 1, 0), allocator))
        .isPresent()
        .get()
        .satisfies(r -> r.close());
  }
}
