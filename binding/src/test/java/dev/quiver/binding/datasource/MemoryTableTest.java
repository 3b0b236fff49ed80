package dev.quiver.binding.datasource;

import static dev.quiver.binding.datasource.ScanTestSupport.ALL_TYPES;
import static dev.quiver.binding.datasource.ScanTestSupport.allTypesBatch;
import static dev.quiver.binding.datasource.ScanTestSupport.expectedRows;
import static dev.quiver.binding.datasource.ScanTestSupport.project;
import static dev.quiver.binding.datasource.ScanTestSupport.readAll;
import static dev.quiver.binding.datasource.ScanTestSupport.readPartition;
import static dev.quiver.binding.datasource.ScanTestSupport.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.physical.ExecutionPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryTableTest {
  private RootAllocator root;
  private BufferAllocator tableAllocator;
  private BufferAllocator queryAllocator;

  @BeforeEach
  void setUp() {
    root = new RootAllocator();
    tableAllocator = root.newChildAllocator("table", 0, Long.MAX_VALUE);
    queryAllocator = root.newChildAllocator("query", 0, Long.MAX_VALUE);
  }

  @AfterEach
  void tearDown() {
    assertThat(queryAllocator.getAllocatedMemory()).isZero();
    queryAllocator.close();
    tableAllocator.close();
    root.close();
  }

  private MemoryTable table(int... batchSizes) {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    long id = 0;
    for (int size : batchSizes) {
      batches.add(allTypesBatch(id, size, queryAllocator));
      id += size;
    }
    try {
      return new MemoryTable(ALL_TYPES, batches, tableAllocator);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  @Test
  void copiesBatchesAndReadsEveryRowOnceOverPartitions() {
    try (MemoryTable t = table(100, 50, 7, 0, 300)) {
      assertThat(queryAllocator.getAllocatedMemory()).isZero();
      assertThat(tableAllocator.getAllocatedMemory()).isPositive();
      ExecutionPlan plan = t.scan(request(null, OptionalLong.empty(), 3, 64));
      assertThat(plan.partitionCount()).isEqualTo(3);
      assertThat(plan.schema()).isEqualTo(ALL_TYPES);
      List<List<Object>> rows = readAll(plan, queryAllocator);
      assertThat(rows).containsExactlyInAnyOrderElementsOf(expectedRows(0, 457));
      for (int p = 0; p < 3; p++) {
        assertThat(readPartition(plan, p, queryAllocator)).isNotEmpty();
      }
    }
    assertThat(tableAllocator.getAllocatedMemory()).isZero();
  }

  @Test
  void slicesOneLargeBatchOverAllPartitions() {
    try (MemoryTable t = table(1000)) {
      ExecutionPlan plan = t.scan(request(null, OptionalLong.empty(), 4, 8192));
      assertThat(plan.partitionCount()).isEqualTo(4);
      for (int p = 0; p < 4; p++) {
        assertThat(readPartition(plan, p, queryAllocator)).hasSize(250);
      }
      assertThat(readAll(plan, queryAllocator))
          .containsExactlyInAnyOrderElementsOf(expectedRows(0, 1000));
    }
  }

  @Test
  void projectsWithoutCopyingAndHonoursLimit() {
    try (MemoryTable t = table(100, 100)) {
      long before = tableAllocator.getAllocatedMemory();
      ExecutionPlan plan = t.scan(request(new int[] {4, 0, 4}, OptionalLong.of(30), 1, 8192));
      assertThat(plan.schema().getFields())
          .extracting(f -> f.getName())
          .containsExactly("txt", "id", "txt");
      List<List<Object>> rows = readAll(plan, queryAllocator);
      assertThat(rows).isEqualTo(project(expectedRows(0, 30), 4, 0, 4));
      assertThat(tableAllocator.getAllocatedMemory()).isEqualTo(before);
    }
  }

  @Test
  void zeroColumnProjectionKeepsRowCounts() {
    try (MemoryTable t = table(10, 5)) {
      ExecutionPlan plan = t.scan(request(new int[0], OptionalLong.empty(), 2, 8192));
      assertThat(readAll(plan, queryAllocator)).hasSize(15).allMatch(List::isEmpty);
    }
  }

  @Test
  void appendAddsRowsAndStatisticsCountThem() {
    try (MemoryTable t = table(10)) {
      try (VectorSchemaRoot more = allTypesBatch(10, 5, queryAllocator)) {
        t.append(List.of(more));
      }
      TableStatistics stats = t.statistics();
      assertThat(stats.rowCount()).hasValue(15);
      assertThat(stats.totalBytes().getAsLong()).isPositive();
      assertThat(readAll(t.scan(request(null, OptionalLong.empty(), 2, 8192)), queryAllocator))
          .containsExactlyInAnyOrderElementsOf(expectedRows(0, 15));
    }
  }

  @Test
  void appendRejectsOtherSchema() {
    Schema other = new Schema(List.of(ScanTestSupport.field("x", ArrowType.Utf8.INSTANCE)));
    try (MemoryTable t = table(3);
        VectorSchemaRoot wrong = VectorSchemaRoot.create(other, queryAllocator)) {
      assertThatThrownBy(() -> t.append(List.of(wrong)))
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining("does not match");
      assertThat(t.statistics().rowCount()).hasValue(3);
    }
  }

  @Test
  void partitionsCanBeReadConcurrently() throws Exception {
    try (MemoryTable t = table(5000, 5000, 5000, 5000)) {
      ExecutionPlan plan = t.scan(request(null, OptionalLong.empty(), 4, 512));
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(4);
      try {
        List<java.util.concurrent.Future<List<List<Object>>>> parts = new ArrayList<>();
        for (int p = 0; p < plan.partitionCount(); p++) {
          int partition = p;
          parts.add(pool.submit(() -> readPartition(plan, partition, queryAllocator)));
        }
        List<List<Object>> all = new ArrayList<>();
        for (var f : parts) {
          all.addAll(f.get());
        }
        // Sorted text rows: AssertJ's any-order containment is quadratic, minutes for 20,000 rows
        // on a loaded machine.
        assertThat(sortedText(all)).isEqualTo(sortedText(expectedRows(0, 20_000)));
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void emptyTableScansToNothing() {
    try (MemoryTable t = new MemoryTable(ALL_TYPES, List.of(), tableAllocator)) {
      ExecutionPlan plan = t.scan(request(null, OptionalLong.empty(), 4, 8192));
      assertThat(plan.partitionCount()).isEqualTo(1);
      assertThat(readAll(plan, queryAllocator)).isEmpty();
    }
  }

  private static List<String> sortedText(List<List<Object>> rows) {
    return rows.stream().map(String::valueOf).sorted().toList();
  }
}
