package dev.quiver.binding.datasource;

import static dev.quiver.binding.datasource.ScanTestSupport.readAll;
import static dev.quiver.binding.datasource.ScanTestSupport.readPartition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.ComparisonExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.physical.scan.ParquetSplit;
import dev.quiver.binding.settings.SessionConfig;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Splitting Parquet files by row group: split or whole, the reader returns exactly what DuckDB
 * reads, for every type, codec and null pattern; statistics skip row groups.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ParquetRowGroupSplitTest {
  private static final int ROWS = 20_000;

  /** DuckDB rounds row groups to multiples of its 2048-row vectors: 10 row groups of 2048. */
  private static final int ROW_GROUP = 2048;

  /**
   * One column of each supported type, with NULLs, negatives, and (for strings) dictionary-friendly
   * repeats; rows are ordered by id so that row-group statistics on id are tight.
   */
  private static final String ALL_TYPES =
      "SELECT i::BIGINT AS id,"
          + " CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 37 % 1000 - 500)::INTEGER END AS i32,"
          + " (i % 300 - 150)::SMALLINT AS i16,"
          + " (i % 200 - 100)::TINYINT AS i8,"
          + " CASE WHEN i % 11 = 0 THEN NULL ELSE i % 3 = 0 END AS flag,"
          + " (i / 8.0)::FLOAT AS f32,"
          + " CASE WHEN i % 5 = 0 THEN NULL ELSE i * -1.5e-3 END AS f64,"
          + " CASE WHEN i % 13 = 0 THEN NULL ELSE 'name-' || (i % 97)::VARCHAR END AS s,"
          + " CASE WHEN i % 17 = 0 THEN NULL ELSE repeat('x', i % 40) || i::VARCHAR END AS s_unique,"
          + " DATE '1992-01-01' + (i % 2500)::INTEGER AS dt,"
          + " ((i - 10000) * 1.25)::DECIMAL(9,2) AS dec32,"
          + " CASE WHEN i % 9 = 0 THEN NULL ELSE ((i - 7000) * 123456.789)::DECIMAL(18,3) END AS dec64,"
          + " ((i - 12345) * 98765432109.1234)::DECIMAL(30,4) AS dec128,"
          + " ((i % 1000) * 0.01 - 3)::DECIMAL(15,2) AS money,"
          // Whole row groups (and so pages) of NULLs, then values.
          + " CASE WHEN i < 5000 THEN NULL ELSE 'late-' || (i % 13)::VARCHAR END AS late_s,"
          + " CASE WHEN i < 5000 THEN NULL ELSE i * 3 END AS late_n"
          + " FROM range("
          + ROWS
          + ") t(i)";

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

  /** Writes {@code select}'s rows to {@code file} with DuckDB. */
  private static void duckdbWrite(String select, Path file, String options) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY ("
              + select
              + ") TO '"
              + file
              + "' (FORMAT PARQUET, ROW_GROUP_SIZE "
              + ROW_GROUP
              + (options.isEmpty() ? "" : ", " + options)
              + ")");
    }
  }

  private static ScanRequest request(List<PhysicalExpr> filters, int partitions, boolean split) {
    SessionConfig config =
        new SessionConfig()
            .withBatchSize(1000)
            .set(ParquetTable.ROW_GROUP_READER, Boolean.toString(split));
    return new ScanRequest(null, filters, OptionalLong.empty(), partitions, config);
  }

  private static List<ParquetSplit> splits(ParquetScanExec scan) {
    return scan.partitionSplits().stream().flatMap(List::stream).toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"uncompressed", "snappy", "gzip", "zstd", "lz4"})
  void rowGroupSplitsReadWhatDuckDbReads(String codec) throws Exception {
    Path file = tmp.resolve("all_" + codec + ".parquet");
    duckdbWrite(ALL_TYPES, file, "COMPRESSION " + codec);
    ParquetTable table = ParquetTable.open(file.toString());

    ParquetScanExec split = (ParquetScanExec) table.scan(request(List.of(), 4, true));
    assertThat(split.partitionCount()).isEqualTo(4);
    assertThat(split.fileCount()).isEqualTo(1);
    List<ParquetSplit> parts = splits(split);
    assertThat(parts).noneMatch(ParquetSplit::isWholeFile);
    assertThat(parts.stream().mapToInt(ParquetSplit::rowGroupCount).sum())
        .isEqualTo((ROWS + ROW_GROUP - 1) / ROW_GROUP);
    assertThat(split.displayDetails()).contains("[rg ");
    for (int p = 0; p < split.partitionCount(); p++) {
      assertThat(readPartition(split, p, allocator)).as("partition %d", p).isNotEmpty();
    }

    ParquetScanExec whole = (ParquetScanExec) table.scan(request(List.of(), 4, false));
    assertThat(splits(whole)).allMatch(ParquetSplit::isWholeFile);

    assertThat(readAll(whole, allocator)).hasSize(ROWS);
    // f32 is left out: the SQL planner reads a REAL column's type as DOUBLE. Every row for
    // LZ4 (new here), every seventh for the codecs the unit tests and other files cover.
    sameAsDuckDb(
        file,
        "SELECT id, i32, i16, i8, flag, f64, s, s_unique, dt, dec32, dec64, dec128, money,"
            + " late_s, late_n FROM t"
            + (codec.equals("lz4") ? "" : " WHERE id % 7 = 3"));
  }

  /**
   * Every row of {@code sql} over {@code file} read by Quiver over 4 partitions equals DuckDB's.
   */
  private static void sameAsDuckDb(Path file, String sql) throws Exception {
    List<String> want = SameRows.duckdb("t", "SELECT * FROM read_parquet('" + file + "')", sql);
    try (dev.quiver.binding.SessionContext ctx =
        new dev.quiver.binding.SessionContext(
            new SessionConfig().withTargetPartitions(4).withBatchSize(1000))) {
      ctx.registerParquet("t", file.toString());
      SameRows.same(want, SameRows.quiver(ctx, sql), sql);
    }
  }

  @Test
  void aggregatesOverSplitsMatchDuckDb() throws Exception {
    Path file = tmp.resolve("agg.parquet");
    duckdbWrite(ALL_TYPES, file, "COMPRESSION snappy");
    String sql =
        "SELECT count(*), count(i32), sum(i32), count(flag), sum(dec32), sum(dec64), sum(dec128),"
            + " sum(money), min(dt), max(dt), count(s), count(DISTINCT s), max(s_unique),"
            + " sum(i16), sum(i8)"
            + " FROM %s WHERE id %% 3 <> 1";
    List<String> expected;
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(String.format(sql, "read_parquet('" + file + "')"))) {
      rs.next();
      expected = new ArrayList<>();
      for (int i = 1; i <= 15; i++) {
        Object v = rs.getObject(i);
        expected.add(v instanceof java.sql.Date d ? d.toLocalDate().toString() : String.valueOf(v));
      }
    }
    try (dev.quiver.binding.SessionContext ctx =
        new dev.quiver.binding.SessionContext(new SessionConfig().withTargetPartitions(4))) {
      ctx.registerParquet("t", file.toString());
      assertThat(ctx.sql(String.format(sql, "t")).explain()).contains("[rg ");
      List<String> actual = new ArrayList<>();
      try (var batch = ctx.sql(String.format(sql, "t")).collect().get(0)) {
        for (var v : batch.getFieldVectors()) {
          Object o = ScanTestSupport.value(v, 0);
          actual.add(String.valueOf(o));
        }
      }
      assertThat(actual).isEqualTo(expected);
    }
  }

  @Test
  void statisticsSkipRowGroups() throws Exception {
    Path file = tmp.resolve("sorted.parquet");
    duckdbWrite(ALL_TYPES, file, "");
    ParquetTable table = ParquetTable.open(file.toString());
    ColumnExpr id = new ColumnExpr(0, "id", new ArrowType.Int(64, true), true);
    PhysicalExpr filter =
        new ComparisonExpr(
            ComparisonExpr.Op.GE, id, new LiteralExpr(15_000L, new ArrowType.Int(64, true)));
    // Even with one partition, the file is cut to the row groups that can match.
    ParquetScanExec scan = (ParquetScanExec) table.scan(request(List.of(filter), 1, true));
    List<ParquetSplit> parts = splits(scan);
    int firstMatching = 15_000 / ROW_GROUP;
    int groups = (ROWS + ROW_GROUP - 1) / ROW_GROUP;
    assertThat(parts)
        .containsExactly(
            ParquetSplit.rowGroups(
                file.toString(), firstMatching, groups - firstMatching, Files.size(file)));
    List<List<Object>> rows = readAll(scan, allocator);
    assertThat(rows).hasSize(ROWS - firstMatching * ROW_GROUP);
    assertThat(rows.stream().filter(r -> (Long) r.get(0) >= 15_000).count()).isEqualTo(5_000);

    // A filter no row group can meet reads nothing.
    PhysicalExpr none =
        new ComparisonExpr(
            ComparisonExpr.Op.GT, id, new LiteralExpr(1_000_000L, new ArrowType.Int(64, true)));
    ParquetScanExec empty = (ParquetScanExec) table.scan(request(List.of(none), 4, true));
    assertThat(splits(empty)).isEmpty();
    assertThat(readAll(empty, allocator)).isEmpty();
  }

  @Test
  void limitAndDuplicateColumnsOverSplits() throws Exception {
    Path file = tmp.resolve("limit.parquet");
    duckdbWrite(ALL_TYPES, file, "");
    ParquetTable table = ParquetTable.open(file.toString());
    ScanRequest limited =
        new ScanRequest(
            new int[] {7, 0, 7},
            List.of(),
            OptionalLong.of(5),
            2,
            new SessionConfig().withBatchSize(1000));
    ParquetScanExec scan = (ParquetScanExec) table.scan(limited);
    assertThat(splits(scan)).noneMatch(ParquetSplit::isWholeFile);
    for (int p = 0; p < scan.partitionCount(); p++) {
      List<List<Object>> rows = readPartition(scan, p, allocator);
      assertThat(rows).hasSize(5);
      for (List<Object> r : rows) {
        assertThat(r.get(0)).isEqualTo(r.get(2));
      }
    }
  }

  @Test
  void timestampsAndTimesAreSplitByRowGroup() throws Exception {
    Path file = tmp.resolve("times.parquet");
    duckdbWrite(
        "SELECT i::BIGINT AS id, TIMESTAMP '2020-01-01 00:00:00' + INTERVAL (i) SECOND AS ts,"
            + " CASE WHEN i % 5 = 0 THEN NULL ELSE TIMESTAMPTZ '2021-06-01 12:00:00+00'"
            + " - INTERVAL (i * 7) MINUTE END AS tz,"
            + " make_timestamp_ms(1600000000000 + i * 1001) AS ms,"
            + " TIME '01:02:03' + INTERVAL (i) MILLISECOND AS t,"
            + " ('2000-01-01 00:00:00.123456'::TIMESTAMP + INTERVAL (i) DAY)::TIMESTAMP_NS AS ns"
            + " FROM range("
            + ROWS
            + ") t(i)",
        file,
        "");
    ParquetTable table = ParquetTable.open(file.toString());
    ParquetScanExec scan = (ParquetScanExec) table.scan(request(List.of(), 4, true));
    assertThat(splits(scan)).noneMatch(ParquetSplit::isWholeFile);
    assertThat(readAll(scan, allocator)).hasSize(ROWS);
    sameAsDuckDb(file, "SELECT * FROM t");
  }

  @Test
  void corruptColumnChunkFailsWithTypedError() throws Exception {
    Path file = tmp.resolve("corrupt.parquet");
    duckdbWrite(ALL_TYPES, file, "COMPRESSION snappy");
    ParquetTable table = ParquetTable.open(file.toString());
    ParquetScanExec scan = (ParquetScanExec) table.scan(request(List.of(), 4, true));
    // Garbage over the data pages; the footer stays intact, so only reading finds it.
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      byte[] junk = new byte[(int) (raf.length() / 2)];
      java.util.Arrays.fill(junk, (byte) 0x5A);
      raf.seek(4);
      raf.write(junk);
    }
    assertThatThrownBy(() -> readAll(scan, allocator))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(file.toString());
  }

  @Test
  void truncatedFileFailsWithTypedError() throws IOException, SQLException {
    Path file = tmp.resolve("truncated.parquet");
    duckdbWrite(ALL_TYPES, file, "");
    ParquetTable table = ParquetTable.open(file.toString());
    ParquetScanExec scan = (ParquetScanExec) table.scan(request(List.of(), 4, true));
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(raf.length() / 3);
    }
    assertThatThrownBy(() -> readAll(scan, allocator))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining("not a valid Parquet file");
  }
}
