package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.executor.shuffle.PartitionReader;
import dev.quiver.executor.shuffle.ShuffleStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class ShuffleStoreTest {

  private static final int ROWS = 1_000;

  @TempDir Path workDir;

  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void checkNoLeak() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  private void appendBatches(ShuffleStore store, ShufflePartitionId id, int from, int to) {
    for (int b = from; b < to; b++) {
      try (VectorSchemaRoot batch = TestBatches.batch(allocator, b, ROWS)) {
        store.append(id, batch);
        assertThat(batch.getRowCount()).isZero();
      }
    }
  }

  private List<String> readAll(ShuffleStore store, ShufflePartitionId id) throws Exception {
    List<String> rows = new ArrayList<>();
    try (BufferAllocator read = allocator.newChildAllocator("read", 0, Long.MAX_VALUE);
        PartitionReader reader = store.open(id, read).orElseThrow();
        VectorSchemaRoot root = VectorSchemaRoot.create(reader.schema(), read)) {
      assertThat(reader.schema()).isEqualTo(TestBatches.SCHEMA);
      while (reader.loadNext(root)) {
        TestBatches.dump(root, rows);
      }
    }
    return rows;
  }

  private static long spillFiles(ShuffleStore store) throws Exception {
    try (Stream<Path> files = Files.list(store.spillDirectory())) {
      return files.count();
    }
  }

  @Test
  void batchesRoundTripInMemory() throws Exception {
    ShufflePartitionId id = ShuffleTickets.id("j1", 1, 0, 3);
    try (ShuffleStore store = new ShuffleStore(allocator, workDir, 64L << 20)) {
      appendBatches(store, id, 0, 3);
      store.complete(id, TestBatches.SCHEMA);
      assertThat(readAll(store, id)).isEqualTo(TestBatches.expected(3, ROWS));
      // A partition can be read more than once (e.g. by a retried consumer).
      assertThat(readAll(store, id)).hasSize(3 * ROWS);
      assertThat(spillFiles(store)).isZero();
      assertThat(store.diskBytes()).isZero();
      assertThat(store.memoryBytes()).isPositive();
    }
  }

  @Test
  void spillsToArrowFilesOverBudgetAndReadsBackInOrder() throws Exception {
    ShufflePartitionId big = ShuffleTickets.id("j1", 1, 0, 0);
    ShufflePartitionId small = ShuffleTickets.id("j1", 1, 0, 1);
    long budget = 64 * 1024;
    try (ShuffleStore store = new ShuffleStore(allocator, workDir, budget)) {
      appendBatches(store, big, 0, 12);
      assertThat(spillFiles(store)).isPositive();
      assertThat(store.diskBytes()).isPositive();
      assertThat(store.memoryBytes()).isLessThanOrEqualTo(budget);
      try (Stream<Path> files = Files.list(store.spillDirectory())) {
        assertThat(files).allSatisfy(f -> assertThat(f.toString()).endsWith(".arrow"));
      }
      appendBatches(store, small, 0, 1);
      store.complete(big, TestBatches.SCHEMA);
      store.complete(small, TestBatches.SCHEMA);
      assertThat(readAll(store, big)).isEqualTo(TestBatches.expected(12, ROWS));
      assertThat(readAll(store, small)).isEqualTo(TestBatches.expected(1, ROWS));
    }
  }

  @Test
  void partitionIsReadableOnlyOnceComplete() throws Exception {
    ShufflePartitionId id = ShuffleTickets.id("j1", 2, 1, 0);
    try (ShuffleStore store = new ShuffleStore(allocator, workDir, 1 << 20)) {
      appendBatches(store, id, 0, 1);
      assertThat(store.isWriting(id)).isTrue();
      assertThat(store.open(id, allocator)).isEmpty();
      store.complete(id, TestBatches.SCHEMA);
      assertThat(store.isWriting(id)).isFalse();
      assertThat(readAll(store, id)).hasSize(ROWS);
      assertThatThrownBy(() -> appendBatches(store, id, 1, 2))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("job j1 stage 2 task 1 partition 0 is already complete");
    }
  }

  @Test
  void completingWithoutBatchesGivesAnEmptyPartition() throws Exception {
    ShufflePartitionId id = ShuffleTickets.id("j1", 1, 4, 2);
    try (ShuffleStore store = new ShuffleStore(allocator, workDir, 1 << 20)) {
      store.complete(id, TestBatches.SCHEMA);
      assertThat(readAll(store, id)).isEmpty();
    }
  }

  @Test
  void batchWithAnotherSchemaIsRefused() throws Exception {
    ShufflePartitionId id = ShuffleTickets.id("j1", 1, 0, 0);
    Schema other = new Schema(List.of(Field.nullable("x", new ArrowType.Int(32, true))));
    try (ShuffleStore store = new ShuffleStore(allocator, workDir, 1 << 20)) {
      appendBatches(store, id, 0, 1);
      assertThatThrownBy(() -> store.complete(id, other))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("job j1 stage 1 task 0 partition 0");
    }
  }

  @Test
  void removeJobDeletesItsPartitionsInMemoryAndOnDisk() throws Exception {
    try (ShuffleStore store = new ShuffleStore(allocator, workDir, 32 * 1024)) {
      for (int p = 0; p < 3; p++) {
        appendBatches(store, ShuffleTickets.id("gone", 1, 0, p), 0, 4);
        store.complete(ShuffleTickets.id("gone", 1, 0, p), TestBatches.SCHEMA);
      }
      ShufflePartitionId kept = ShuffleTickets.id("kept", 1, 0, 0);
      appendBatches(store, kept, 0, 2);
      store.complete(kept, TestBatches.SCHEMA);
      assertThat(spillFiles(store)).isPositive();

      ShuffleStore.Removed removed = store.removeJob("gone");
      assertThat(removed.partitions()).isEqualTo(3);
      assertThat(removed.bytes()).isPositive();
      assertThat(store.partitionCount()).isEqualTo(1);
      assertThat(store.open(ShuffleTickets.id("gone", 1, 0, 0), allocator)).isEmpty();
      try (Stream<Path> files = Files.list(store.spillDirectory())) {
        assertThat(files)
            .allSatisfy(f -> assertThat(f.getFileName().toString()).startsWith("s1-t0-p0-"));
      }
      assertThat(readAll(store, kept)).isEqualTo(TestBatches.expected(2, ROWS));
      assertThat(store.removeJob("gone").partitions()).isZero();
    }
  }

  @Test
  void readerKeepsItsSnapshotWhenTheJobIsRemoved() throws Exception {
    ShufflePartitionId id = ShuffleTickets.id("j1", 1, 0, 0);
    try (ShuffleStore store = new ShuffleStore(allocator, workDir, 64L << 20);
        BufferAllocator read = allocator.newChildAllocator("read", 0, Long.MAX_VALUE)) {
      appendBatches(store, id, 0, 2);
      store.complete(id, TestBatches.SCHEMA);
      List<String> rows = new ArrayList<>();
      try (PartitionReader reader = store.open(id, read).orElseThrow();
          VectorSchemaRoot root = VectorSchemaRoot.create(reader.schema(), read)) {
        store.removeJob("j1");
        while (reader.loadNext(root)) {
          TestBatches.dump(root, rows);
        }
      }
      assertThat(rows).isEqualTo(TestBatches.expected(2, ROWS));
    }
  }

  @Test
  void closeDeletesTheSpillDirectory() throws Exception {
    Path spillDir;
    try (ShuffleStore store = new ShuffleStore(allocator, workDir, 0)) {
      appendBatches(store, ShuffleTickets.id("j1", 1, 0, 0), 0, 2);
      spillDir = store.spillDirectory();
      assertThat(spillFiles(store)).isEqualTo(2);
      assertThat(store.memoryBytes()).isZero();
    }
    assertThat(spillDir).doesNotExist();
  }
}
