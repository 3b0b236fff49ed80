package dev.quiver.binding.datasource;

import static dev.quiver.binding.datasource.ScanTestSupport.ALL_TYPES;
import static dev.quiver.binding.datasource.ScanTestSupport.allTypesBatch;
import static dev.quiver.binding.datasource.ScanTestSupport.expectedRows;
import static dev.quiver.binding.datasource.ScanTestSupport.project;
import static dev.quiver.binding.datasource.ScanTestSupport.readAll;
import static dev.quiver.binding.datasource.ScanTestSupport.readPartition;
import static dev.quiver.binding.datasource.ScanTestSupport.readerOf;
import static dev.quiver.binding.datasource.ScanTestSupport.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ParquetTableTest {
  @TempDir Path tmp;
  private RootAllocator root;
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    root = new RootAllocator();
    allocator = root.newChildAllocator("query", 0, Long.MAX_VALUE);
  }

  @AfterEach
  void tearDown() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
    root.close();
  }

  /**
   * Writes ids [0, rows) in batches of {@code batchRows} with a new file every {@code fileBytes}.
   */
  private long write(Path dir, long rows, int batchRows, long fileBytes) throws IOException {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      for (long id = 0; id < rows; id += batchRows) {
        batches.add(allTypesBatch(id, (int) Math.min(batchRows, rows - id), allocator));
      }
      try (ArrowReader reader = readerOf(ALL_TYPES, batches, allocator)) {
        return FileWriters.writeParquet(reader, dir, allocator, fileBytes);
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  @Test
  void roundTripsEveryTypeWithNulls() throws IOException {
    Path dir = tmp.resolve("out");
    assertThat(write(dir, 1000, 300, Long.MAX_VALUE)).isEqualTo(1000);
    assertThat(dir.resolve("part-0.parquet")).exists();
    ParquetTable table = ParquetTable.open(dir.toString());
    assertThat(table.schema()).isEqualTo(ALL_TYPES);
    assertThat(table.statistics().rowCount()).hasValue(1000);
    assertThat(table.statistics().totalBytes().getAsLong()).isPositive();
    List<List<Object>> rows =
        readAll(table.scan(request(null, OptionalLong.empty(), 2, 128)), allocator);
    assertThat(rows).containsExactlyInAnyOrderElementsOf(expectedRows(0, 1000));
  }

  @Test
  void splitsManyFilesOverPartitionsReadingEachRowOnce() throws IOException {
    Path dir = tmp.resolve("multi");
    write(dir, 20_000, 1000, 1);
    ParquetTable table = ParquetTable.open(dir.toString());
    assertThat(table.files()).hasSize(20);
    ExecutionPlan plan = table.scan(request(null, OptionalLong.empty(), 4, 500));
    assertThat(plan.partitionCount()).isEqualTo(4);
    List<List<Object>> all = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      List<List<Object>> part = readPartition(plan, p, allocator);
      assertThat(part).hasSize(5000);
      all.addAll(part);
    }
    assertThat(all).containsExactlyInAnyOrderElementsOf(expectedRows(0, 20_000));
  }

  @Test
  void projectsAndLimits() throws IOException {
    Path dir = tmp.resolve("p");
    write(dir, 5000, 1000, Long.MAX_VALUE);
    ParquetTable table = ParquetTable.open(dir.resolve("part-0.parquet").toString());
    ExecutionPlan plan = table.scan(request(new int[] {6, 3, 0}, OptionalLong.of(1234), 1, 500));
    assertThat(plan).isInstanceOf(ParquetScanExec.class);
    List<List<Object>> rows = readAll(plan, allocator);
    assertThat(rows).isEqualTo(project(expectedRows(0, 1234), 6, 3, 0));
    List<List<Object>> none =
        readAll(table.scan(request(new int[0], OptionalLong.empty(), 1, 4096)), allocator);
    assertThat(none).hasSize(5000);
  }

  @Test
  void emptyResultWritesAReadableFile() throws IOException {
    Path dir = tmp.resolve("empty");
    assertThat(write(dir, 0, 10, Long.MAX_VALUE)).isZero();
    ParquetTable table = ParquetTable.open(dir.toString());
    assertThat(table.schema()).isEqualTo(ALL_TYPES);
    assertThat(readAll(table.scan(request(null, OptionalLong.empty(), 2, 10)), allocator))
        .isEmpty();
  }

  @Test
  void missingPathIsReportedByName() {
    Path missing = tmp.resolve("nope.parquet");
    assertThatThrownBy(() -> ParquetTable.open(missing.toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist")
        .hasMessageStartingWith("Cannot read Parquet data: Path ")
        .hasMessageNotContaining("Parquet Path");
  }

  @Test
  void corruptFileIsReportedAtOpen() throws IOException {
    Path bad = tmp.resolve("bad.parquet");
    Files.writeString(bad, "this is not parquet at all, just text");
    assertThatThrownBy(() -> ParquetTable.open(bad.toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(bad.toString())
        .hasMessageContaining("not a valid Parquet file");
    Path dir = tmp.resolve("mixed");
    write(dir, 10, 10, Long.MAX_VALUE);
    Path truncated = dir.resolve("part-1.parquet");
    byte[] good = Files.readAllBytes(dir.resolve("part-0.parquet"));
    Files.write(truncated, java.util.Arrays.copyOf(good, good.length - 20));
    assertThatThrownBy(() -> ParquetTable.open(dir.toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(truncated.toString());
  }

  @Test
  void findsFilesNamedByArrowsDefaultWriterAndSkipsHiddenOnes() throws IOException {
    Path dir = tmp.resolve("arrow");
    // Arrow's dataset writer names its files data_0, data_1, ... without an extension.
    Path written = tmp.resolve("written");
    write(written, 40, 40, Long.MAX_VALUE);
    Files.createDirectories(dir);
    Files.move(written.resolve("part-0.parquet"), dir.resolve("data_0"));
    Files.writeString(dir.resolve("_SUCCESS"), "");
    Files.writeString(dir.resolve(".hidden.parquet"), "junk");
    ParquetTable table = ParquetTable.open(dir.toString());
    assertThat(table.files()).hasSize(1);
    assertThat(Path.of(table.files().get(0)).getFileName().toString()).doesNotContain(".");
    assertThat(readAll(table.scan(request(null, OptionalLong.empty(), 3, 100)), allocator))
        .containsExactlyInAnyOrderElementsOf(expectedRows(0, 40));
  }

  @Test
  void refusesNonEmptyOutputDirectory() throws IOException {
    Path dir = tmp.resolve("full");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("x.txt"), "x");
    try (ArrowReader reader = readerOf(ALL_TYPES, List.of(), allocator)) {
      assertThatThrownBy(() -> FileWriters.writeParquet(reader, dir, allocator))
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining("not empty");
    }
  }
}
