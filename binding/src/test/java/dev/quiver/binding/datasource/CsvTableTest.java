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
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CsvTableTest {
  private static final ArrowType BIGINT = new ArrowType.Int(64, true);
  private static final ArrowType DOUBLE =
      new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

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

  private long writeAllTypes(Path dir, long from, long rows) {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      for (long id = from; id < from + rows; id += 100) {
        batches.add(allTypesBatch(id, (int) Math.min(100, from + rows - id), allocator));
      }
      try (ArrowReader reader = readerOf(ALL_TYPES, batches, allocator)) {
        return FileWriters.writeCsv(reader, dir);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  private Path csv(String name, String text) throws IOException {
    Path p = tmp.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
    return p;
  }

  private static List<String> types(Schema s) {
    return s.getFields().stream().map(f -> f.getName() + ":" + f.getType()).toList();
  }

  @Test
  void roundTripsEveryTypeWithNullsThroughAnExplicitSchema() {
    Path dir = tmp.resolve("out");
    assertThat(writeAllTypes(dir, 0, 250)).isEqualTo(250);
    CsvTable table = CsvTable.open(dir.toString(), ALL_TYPES, CsvOptions.DEFAULT);
    List<List<Object>> rows =
        readAll(table.scan(request(null, OptionalLong.empty(), 2, 64)), allocator);
    assertThat(rows).isEqualTo(expectedRows(0, 250));
  }

  @Test
  void infersTypesOfWrittenFile() {
    Path dir = tmp.resolve("out");
    writeAllTypes(dir, 0, 50);
    CsvTable table = CsvTable.open(dir.resolve("part-0.csv").toString());
    assertThat(types(table.schema()))
        .containsExactly(
            "id:" + BIGINT,
            "i32:" + BIGINT,
            "dbl:" + DOUBLE,
            "dec:" + DOUBLE,
            "txt:Utf8",
            "flag:Bool",
            "day:" + new ArrowType.Date(DateUnit.DAY),
            "ts:Utf8");
    List<List<Object>> rows =
        readAll(
            table.scan(request(new int[] {0, 4, 5, 6}, OptionalLong.empty(), 1, 8192)), allocator);
    assertThat(rows).isEqualTo(project(expectedRows(0, 50), 0, 4, 5, 6));
  }

  @Test
  void infersFromHandWrittenCsvWithQuotingAndNulls() throws IOException {
    Path f =
        csv(
            "a.csv",
            "n,price,day,ok,name,nothing\r\n"
                + "1,2.5,2024-02-29,true,\"Smith, \"\"J\"\"\",\r\n"
                + "\n"
                + "-7,,1999-12-31,FALSE,\"multi\nline\",\r\n"
                + ",1e3,,,,\r\n");
    CsvTable table = CsvTable.open(f.toString());
    assertThat(types(table.schema()))
        .containsExactly(
            "n:" + BIGINT,
            "price:" + DOUBLE,
            "day:" + new ArrowType.Date(DateUnit.DAY),
            "ok:Bool",
            "name:Utf8",
            "nothing:Utf8");
    List<List<Object>> rows =
        readAll(table.scan(request(null, OptionalLong.empty(), 4, 8192)), allocator);
    assertThat(rows)
        .containsExactly(
            Arrays.asList(1L, 2.5, LocalDate.of(2024, 2, 29), true, "Smith, \"J\"", null),
            Arrays.asList(-7L, null, LocalDate.of(1999, 12, 31), false, "multi\nline", null),
            Arrays.asList(null, 1000.0, null, null, null, null));
  }

  @Test
  void explicitOptionsWithoutHeaderAndOtherDelimiter() throws IOException {
    Path f = csv("t.tsv", "1|x|3.50\n2|\"\"|4\n");
    Schema schema =
        new Schema(
            List.of(
                ScanTestSupport.field("a", new ArrowType.Int(32, true)),
                ScanTestSupport.field("b", ArrowType.Utf8.INSTANCE),
                ScanTestSupport.field("c", new ArrowType.Decimal(5, 2, 128))));
    CsvTable table = CsvTable.open(f.toString(), schema, new CsvOptions('|', false, 10));
    List<List<Object>> rows =
        readAll(table.scan(request(null, OptionalLong.empty(), 1, 8192)), allocator);
    assertThat(rows)
        .containsExactly(
            Arrays.asList(1, "x", new BigDecimal("3.50")),
            Arrays.asList(2, "", new BigDecimal("4.00")));
    CsvTable inferred = CsvTable.open(f.toString(), new CsvOptions('|', false, 10));
    assertThat(inferred.schema().getFields())
        .extracting(Field::getName)
        .containsExactly("column_1", "column_2", "column_3");
  }

  @Test
  void splitsFilesOverPartitionsProjectsAndLimits() {
    Path dir = tmp.resolve("many");
    for (int i = 0; i < 5; i++) {
      writeAllTypes(dir.resolve("f" + i), i * 1000L, 1000);
    }
    CsvTable table = CsvTable.open(dir.toString(), ALL_TYPES, CsvOptions.DEFAULT);
    assertThat(table.files()).hasSize(5);
    ExecutionPlan plan = table.scan(request(null, OptionalLong.empty(), 3, 300));
    assertThat(plan.partitionCount()).isEqualTo(3);
    List<List<Object>> all = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      List<List<Object>> part = readPartition(plan, p, allocator);
      assertThat(part).isNotEmpty();
      all.addAll(part);
    }
    assertThat(all).containsExactlyInAnyOrderElementsOf(expectedRows(0, 5000));
    ExecutionPlan limited = table.scan(request(new int[] {7, 0}, OptionalLong.of(1500), 1, 400));
    assertThat(readAll(limited, allocator)).isEqualTo(project(expectedRows(0, 1500), 7, 0));
  }

  @Test
  void wrongFieldCountNamesFileAndLine() throws IOException {
    Path f = csv("bad.csv", "a,b,c\n1,2,3\n4,5\n");
    CsvTable table = CsvTable.open(f.toString(), new CsvOptions(',', true, 1));
    assertThatThrownBy(
            () -> readAll(table.scan(request(null, OptionalLong.empty(), 1, 8192)), allocator))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("line 3")
        .hasMessageContaining("expected 3 fields but found 2");
    assertThatThrownBy(() -> CsvTable.open(f.toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining("line 3");
  }

  @Test
  void unparsableValueNamesFileLineAndColumn() throws IOException {
    Path f = csv("bad.csv", "id,when\n1,2024-01-01\n2,2024-01-02\n3,2024-13-01\n");
    CsvTable table = CsvTable.open(f.toString(), new CsvOptions(',', true, 2));
    assertThat(table.schema().getFields().get(1).getType())
        .isEqualTo(new ArrowType.Date(DateUnit.DAY));
    assertThatThrownBy(
            () -> readAll(table.scan(request(null, OptionalLong.empty(), 1, 8192)), allocator))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("line 4")
        .hasMessageContaining("column 'when'")
        .hasMessageContaining("'2024-13-01' as DATE");
    Path g = csv("bad2.csv", "x\n12\n1x\n");
    Schema schema = new Schema(List.of(ScanTestSupport.field("x", BIGINT)));
    CsvTable explicit = CsvTable.open(g.toString(), schema, CsvOptions.DEFAULT);
    assertThatThrownBy(
            () -> readAll(explicit.scan(request(null, OptionalLong.empty(), 1, 8192)), allocator))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining("line 3")
        .hasMessageContaining("'1x' as BIGINT");
  }

  @Test
  void unterminatedQuoteIsReported() throws IOException {
    Path f = csv("q.csv", "a,b\n1,\"open\n2,3\n");
    assertThatThrownBy(() -> CsvTable.open(f.toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("line 2")
        .hasMessageContaining("never closed");
  }

  @Test
  void missingFileAndMismatchedHeadersAreReported() throws IOException {
    Path missing = tmp.resolve("none.csv");
    assertThatThrownBy(() -> CsvTable.open(missing.toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist");
    csv("d/1.csv", "a,b\n1,2\n");
    Path other = csv("d/2.csv", "a,c\n1,2\n");
    assertThatThrownBy(() -> CsvTable.open(tmp.resolve("d").toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(other.toString())
        .hasMessageContaining("[a, c]");
  }

  @Test
  void singleColumnNullsSurviveARoundTrip() throws IOException {
    Path f = csv("one.csv", "v\n1\n\n3\n");
    CsvTable table = CsvTable.open(f.toString());
    assertThat(readAll(table.scan(request(null, OptionalLong.empty(), 1, 8192)), allocator))
        .containsExactly(List.of(1L), Arrays.asList((Object) null), List.of(3L));
  }
}
