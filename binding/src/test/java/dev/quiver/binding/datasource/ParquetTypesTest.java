package dev.quiver.binding.datasource;

import static dev.quiver.binding.datasource.ScanTestSupport.readAll;
import static dev.quiver.binding.datasource.ScanTestSupport.readerOf;
import static dev.quiver.binding.datasource.ScanTestSupport.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.ExecutionPlan;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
class ParquetTypesTest {
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

  private static final Schema ODD =
      new Schema(
          List.of(
              ScanTestSupport.field("big_text", ArrowType.LargeUtf8.INSTANCE),
              ScanTestSupport.field("ms_date", new ArrowType.Date(DateUnit.MILLISECOND)),
              ScanTestSupport.field("ns_ts", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC")),
              ScanTestSupport.field("u32", new ArrowType.Int(32, false)),
              ScanTestSupport.field("wide_dec", new ArrowType.Decimal(30, 3, 256))));

  private Path writeOdd(int rows) throws IOException {
    Path dir = tmp.resolve("odd");
    try (VectorSchemaRoot batch = VectorSchemaRoot.create(ODD, allocator)) {
      batch.allocateNew();
      for (int r = 0; r < rows; r++) {
        if (r % 4 == 1) {
          for (int c = 0; c < 5; c++) {
            batch.getVector(c).setNull(r);
          }
          continue;
        }
        ((LargeVarCharVector) batch.getVector(0))
            .setSafe(r, ("v" + r).getBytes(StandardCharsets.UTF_8));
        ((DateMilliVector) batch.getVector(1)).setSafe(r, (10_000L + r) * 86_400_000L);
        ((TimeStampNanoTZVector) batch.getVector(2)).setSafe(r, 1_000_000_123_456_789L + r * 1000L);
        ((UInt4Vector) batch.getVector(3)).setSafe(r, (int) (4_000_000_000L - r));
        ((Decimal256Vector) batch.getVector(4))
            .setSafe(r, new BigDecimal("-123456789012345678901.234").add(BigDecimal.valueOf(r)));
      }
      batch.setRowCount(rows);
      try (ArrowReader reader = readerOf(ODD, List.of(batch), allocator)) {
        FileWriters.writeParquet(reader, dir, allocator);
      }
    }
    return dir;
  }

  @Test
  void convertsFileTypesToInternalOnes() throws IOException {
    Path dir = writeOdd(20);
    ParquetTable table = ParquetTable.open(dir.toString());
    assertThat(table.schema().getFields())
        .extracting(f -> f.getType())
        .containsExactly(
            ArrowType.Utf8.INSTANCE,
            new ArrowType.Date(DateUnit.DAY),
            new ArrowType.Timestamp(TimeUnit.MICROSECOND, null),
            new ArrowType.Int(64, true),
            new ArrowType.Decimal(30, 3, 128));
    List<List<Object>> rows =
        readAll(table.scan(request(null, OptionalLong.empty(), 1, 7)), allocator);
    List<List<Object>> expected = new ArrayList<>();
    for (int r = 0; r < 20; r++) {
      expected.add(
          r % 4 == 1
              ? Arrays.asList(null, null, null, null, null)
              : Arrays.asList(
                  "v" + r,
                  LocalDate.ofEpochDay(10_000L + r),
                  LocalDateTime.of(1970, 1, 12, 13, 46, 40, 123_456_000).plusNanos(r * 1000L),
                  4_000_000_000L - r,
                  new BigDecimal("-123456789012345678901.234").add(BigDecimal.valueOf(r))));
    }
    assertThat(rows).isEqualTo(expected);
  }

  @Test
  void allocatorLimitBecomesResourcesExhausted() throws IOException {
    Path dir = tmp.resolve("big");
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        batches.add(ScanTestSupport.allTypesBatch(i * 5000L, 5000, allocator));
      }
      try (ArrowReader reader = readerOf(ScanTestSupport.ALL_TYPES, batches, allocator)) {
        FileWriters.writeParquet(reader, dir, allocator);
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    ParquetTable table = ParquetTable.open(dir.toString());
    ExecutionPlan plan = table.scan(request(null, OptionalLong.empty(), 1, 20_000));
    try (BufferAllocator tiny = allocator.newChildAllocator("tiny", 0, 64 * 1024)) {
      assertThatThrownBy(() -> readAll(plan, tiny))
          .isInstanceOf(ResourcesExhaustedException.class)
          .hasMessageContaining("memory_limit");
    }
  }

  @Test
  void halfFloatIsWidenedByTheNormalizer() {
    assertThat(
            dev.quiver.binding.physical.scan.TypeNormalizer.normalize(
                new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)))
        .isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
  }
}
