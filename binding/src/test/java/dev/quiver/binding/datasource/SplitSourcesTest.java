package dev.quiver.binding.datasource;

import static dev.quiver.binding.datasource.ScanTestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.SplitSource;
import dev.quiver.binding.physical.SplitSources;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.scan.CsvScanExec;
import dev.quiver.binding.physical.scan.FileScanExec;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scans read whatever splits their source hands them: any partition may read any split, and the
 * rows of a scan are those of its splits, however they are dealt.
 */
class SplitSourcesTest {
  @TempDir Path tmp;
  private RootAllocator root;
  private BufferAllocator allocator;
  private ExecutorService executor;

  @BeforeEach
  void setUp() {
    root = new RootAllocator();
    allocator = root.newChildAllocator("query", 0, Long.MAX_VALUE);
    executor = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
    root.close();
  }

  private Path parquet(String name, int rows) throws Exception {
    Path file = tmp.resolve(name);
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT i::BIGINT AS id, 'v' || i::VARCHAR AS s FROM range("
              + rows
              + ") t(i)) TO '"
              + file
              + "' (FORMAT PARQUET, ROW_GROUP_SIZE 2048)");
    }
    return file;
  }

  private static ScanRequest request(int partitions, boolean rowGroups) {
    SessionConfig config =
        new SessionConfig()
            .withBatchSize(1000)
            .set(ParquetTable.ROW_GROUP_READER, Boolean.toString(rowGroups));
    return new ScanRequest(null, List.of(), OptionalLong.empty(), partitions, config);
  }

  /** Reads partition {@code partition} of {@code scan} with its splits from {@code sources}. */
  private List<List<Object>> read(FileScanExec scan, int partition, SplitSources sources) {
    TaskContext ctx =
        new TaskContext(
            "test", allocator, new MemoryPool(Long.MAX_VALUE), new SessionConfig(), executor);
    ctx.useSplitSources(sources);
    List<List<Object>> rows = new ArrayList<>();
    try (ctx;
        BatchStream stream = scan.execute(partition, ctx)) {
      VectorSchemaRoot batch;
      while ((batch = stream.next()) != null) {
        try (VectorSchemaRoot b = batch) {
          for (int r = 0; r < b.getRowCount(); r++) {
            List<Object> row = new ArrayList<>();
            for (FieldVector v : b.getFieldVectors()) {
              row.add(ScanTestSupport.value(v, r));
            }
            rows.add(row);
          }
        }
      }
    }
    return rows;
  }

  /** A source handing out {@code splits} one at a time, none at hand (as work stealing does). */
  private static SplitSource oneAtATime(int[] splits, List<String> closed) {
    return new SplitSource() {
      private int next;

      @Override
      public int next() {
        return next < splits.length ? splits[next++] : -1;
      }

      @Override
      public int peekAtHand() {
        return -1;
      }

      @Override
      public void close() {
        closed.add("closed");
      }
    };
  }

  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> out = new ArrayList<>(rows);
    out.sort(Comparator.comparing(Object::toString));
    return out;
  }

  @Test
  void parquetRowGroupRangesAreSplitOneRowGroupEach() throws Exception {
    ParquetTable table = ParquetTable.open(parquet("a.parquet", 20_000).toString());
    ParquetScanExec scan = (ParquetScanExec) table.scan(request(3, true));
    assertThat(scan.partitionCount()).isEqualTo(3);
    // 20 000 rows in row groups of 2048: 10 row groups, each its own split.
    assertThat(scan.splitCount()).isEqualTo(10);
    List<Integer> planned = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      for (int s : scan.plannedSplits(p)) {
        planned.add(s);
        assertThat(scan.split(s).rowGroupCount()).isEqualTo(1);
      }
    }
    assertThat(planned).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);

    List<List<Object>> expected = sorted(readAll(scan, allocator));
    assertThat(expected).hasSize(20_000);
    // Partition 2 reads every split, backwards and one at a time; the others read none.
    int[] all = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    List<String> closed = new ArrayList<>();
    SplitSources stealing =
        (plan, partition, ignored) -> oneAtATime(partition == 2 ? all : new int[0], closed);
    List<List<Object>> actual = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      List<List<Object>> rows = read(scan, p, stealing);
      assertThat(rows.isEmpty()).as("partition %d", p).isEqualTo(p != 2);
      actual.addAll(rows);
    }
    assertThat(sorted(actual)).isEqualTo(expected);
    assertThat(closed).hasSize(3);
  }

  @Test
  void plannedSourceReadsAdjacentRowGroupsAsOneRange() throws Exception {
    ParquetTable table = ParquetTable.open(parquet("b.parquet", 20_000).toString());
    ParquetScanExec scan = (ParquetScanExec) table.scan(request(2, true));
    List<List<Object>> expected = sorted(readAll(scan, allocator));
    List<List<Object>> viaPlanned = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      viaPlanned.addAll(read(scan, p, SplitSources.PLANNED));
    }
    assertThat(sorted(viaPlanned)).isEqualTo(expected);
  }

  @Test
  void wholeFileSplitsAndCsvFilesAreSplits() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("dir"));
    for (int i = 0; i < 4; i++) {
      Files.move(parquet("f" + i + ".parquet", 1000 + i), dir.resolve("f" + i + ".parquet"));
    }
    ParquetTable table = ParquetTable.open(dir.toString());
    ParquetScanExec scan = (ParquetScanExec) table.scan(request(2, false));
    assertThat(scan.splitCount()).isEqualTo(4);
    assertThat(scan.split(0).isWholeFile()).isTrue();
    List<List<Object>> expected = sorted(readAll(scan, allocator));
    SplitSources allToFirst =
        (plan, partition, ignored) ->
            partition == 0 ? SplitSource.of(new int[] {3, 0, 2, 1}) : SplitSource.of(new int[0]);
    List<List<Object>> actual = new ArrayList<>(read(scan, 0, allToFirst));
    actual.addAll(read(scan, 1, allToFirst));
    assertThat(sorted(actual)).isEqualTo(expected).hasSize(4006);

    Path csvDir = Files.createDirectories(tmp.resolve("csv"));
    for (int i = 0; i < 3; i++) {
      Files.writeString(csvDir.resolve("c" + i + ".csv"), "a,b\n" + i + ",x\n" + (i + 10) + ",y\n");
    }
    ExecutionPlan csvPlan = CsvTable.open(csvDir.toString()).scan(request(3, true));
    CsvScanExec csv = (CsvScanExec) csvPlan;
    assertThat(csv.splitCount()).isEqualTo(3);
    List<List<Object>> csvExpected = sorted(readAll(csv, allocator));
    List<String> closed = new ArrayList<>();
    SplitSources lastTakesAll =
        (plan, partition, ignored) ->
            oneAtATime(partition == 2 ? new int[] {0, 1, 2} : new int[0], closed);
    List<List<Object>> csvActual = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      csvActual.addAll(read(csv, p, lastTakesAll));
    }
    assertThat(sorted(csvActual)).isEqualTo(csvExpected).hasSize(6);
  }
}
