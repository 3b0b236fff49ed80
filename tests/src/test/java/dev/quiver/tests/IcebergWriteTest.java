package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.errors.ConstraintViolationException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.iceberg.catalog.FileSystemTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Iceberg tables written by Quiver's SQL (CREATE TABLE [PARTITIONED BY] AS, CREATE TABLE, INSERT,
 * DELETE, DROP TABLE) in a warehouse folder and through a REST catalog with its files on S3
 * (S3Proxy): every statement runs in DuckDB too, over a plain table, and the queries over the
 * written table equal DuckDB's; Iceberg's own reader ({@link IcebergGenerics}) reads the rows
 * Quiver reads; partitioned files hold only their partition's rows; concurrent INSERTs from two
 * sessions all land; a failed INSERT changes nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IcebergWriteTest {
  static final String[] QUERIES = {
    "SELECT * FROM t ORDER BY id",
    "SELECT count(*), sum(amount), min(d), max(ts), sum(price), count(name) FROM t",
    "SELECT name, count(*), sum(id) FROM t GROUP BY name",
    "SELECT id, price FROM t WHERE d >= DATE '2024-03-01' AND flag",
  };

  @TempDir static Path tmp;
  Path warehouse;
  S3ProxyServer s3;
  RestCatalogServer server;
  RESTCatalog rest;
  SessionContext ctx;
  Connection duck;

  @BeforeAll
  void start() throws Exception {
    warehouse = tmp.resolve("warehouse");
    s3 = S3ProxyServer.start();
    s3.createBucket("lake");
    server = IcebergRestCatalogTest.server(s3, null);
    rest = IcebergRestCatalogTest.writer(s3, server, null);
    rest.createNamespace(Namespace.of("db"));
    ctx = session();
    duck = DriverManager.getConnection("jdbc:duckdb:");
  }

  /** A session with the warehouse attached as lake and the REST catalog as rest. */
  SessionContext session() {
    SessionContext c = new SessionContext();
    s3.configure(c.config());
    c.sql("ATTACH '" + warehouse + "' AS lake (TYPE iceberg)");
    c.sql("ATTACH '" + server.uri() + "' AS rest (TYPE iceberg_rest)");
    return c;
  }

  @AfterAll
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {duck, ctx, rest, server, s3}) {
      if (c != null) {
        c.close();
      }
    }
  }

  /** {@code n} rows of (id, name, d, amount, ts, price, flag), some NULLs. */
  static String rows(int from, int n) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      String name = i % 7 == 3 ? "NULL" : "'n" + (i % 5) + "'";
      String d = String.format("DATE '2024-%02d-%02d'", 1 + i % 6, 1 + i % 27);
      String ts = String.format("TIMESTAMP '2024-01-%02d 10:%02d:00'", 1 + i % 28, i % 60);
      out.add(
          "("
              + i
              + ", "
              + name
              + ", "
              + d
              + ", "
              + (i * 1.25)
              + ", "
              + ts
              + ", "
              + (i * 3)
              + ".5"
              + ", "
              + (i % 2 == 0)
              + ")");
    }
    return "SELECT id, name, d, CAST(amount AS DOUBLE) AS amount, ts,"
        + " CAST(price AS DECIMAL(10, 2)) AS price, flag FROM (VALUES "
        + String.join(", ", out)
        + ") AS v(id, name, d, amount, ts, price, flag)";
  }

  /** Runs {@code sql} in Quiver with {@code table} and in DuckDB with t; the counts agree. */
  void both(String sql, String table) throws Exception {
    List<String> q = SameRows.quiver(ctx, sql.replace("$t", table));
    try (Statement s = duck.createStatement()) {
      String d = sql.replace("$t", "t").replaceAll("PARTITIONED BY \\(.*?\\)\\) ", "");
      if (s.execute(d)) {
        return;
      }
      int count = s.getUpdateCount();
      if (count >= 0 && !q.isEmpty()) {
        assertThat(q).as(sql).containsExactly(Integer.toString(count));
      }
    }
  }

  void sameAsDuckDb(String table) throws Exception {
    for (String query : QUERIES) {
      String sql = query.replace(" FROM t", " FROM " + table);
      SameRows.same(IcebergReadTest.duckdb(duck, query), SameRows.quiver(ctx, sql), sql);
    }
  }

  /** Iceberg's own reader reads the rows Quiver reads. */
  void icebergReadsTheSameRows(Table table, String name) throws Exception {
    assertThat(icebergRows(table))
        .containsExactlyInAnyOrderElementsOf(SameRows.quiver(ctx, "SELECT * FROM " + name));
  }

  /** The rows Iceberg's own reader reads from {@code table}, as {@link SameRows} writes rows. */
  static List<String> icebergRows(Table table) throws Exception {
    table.refresh();
    List<String> got = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < r.size(); i++) {
          b.append(i > 0 ? "|" : "").append(SameRows.normalize(r.get(i)));
        }
        got.add(b.toString());
      }
    }
    return got;
  }

  interface Check {
    void check(Table table) throws Exception;
  }

  /**
   * CTAS, INSERT ... SELECT, INSERT ... VALUES, DELETE and DROP TABLE on {@code table}, each also
   * run in DuckDB; {@code load} gives Iceberg's handle of the table once created.
   */
  void writeReadDeleteDrop(String table, java.util.concurrent.Callable<Table> load, Check check)
      throws Exception {
    try (Statement s = duck.createStatement()) {
      s.execute("DROP TABLE IF EXISTS t");
    }
    both("CREATE TABLE $t AS " + rows(0, 30), table);
    Table handle = load.call();
    both("INSERT INTO $t " + rows(30, 5), table);
    both(
        "INSERT INTO $t VALUES (100, 'v', DATE '2024-05-05', 2.5, TIMESTAMP '2024-05-05 05:05:05',"
            + " 1.25, true), (101, NULL, NULL, NULL, NULL, NULL, NULL)",
        table);
    if (table.startsWith("lake.")) {
      // The REST catalog on S3 is slower; its final state below covers these statements too.
      sameAsDuckDb(table);
      icebergReadsTheSameRows(handle, table);
    }
    check.check(handle);
    long before = handle.currentSnapshot().snapshotId();
    both("DELETE FROM $t WHERE id % 3 = 0 OR name = 'n1'", table);
    sameAsDuckDb(table);
    handle.refresh();
    assertThat(handle.currentSnapshot().snapshotId()).isNotEqualTo(before);
    assertThat(handle.currentSnapshot().operation()).isEqualTo("overwrite");
    icebergReadsTheSameRows(handle, table);
    // A DELETE that matches nothing commits nothing.
    long after = handle.currentSnapshot().snapshotId();
    assertThat(SameRows.quiver(ctx, "DELETE FROM " + table + " WHERE id < 0")).containsExactly("0");
    handle.refresh();
    assertThat(handle.currentSnapshot().snapshotId()).isEqualTo(after);
    ctx.sql("DROP TABLE " + table);
    assertThatThrownBy(() -> ctx.sql("SELECT * FROM " + table)).isInstanceOf(QuiverException.class);
    assertThatThrownBy(() -> ctx.sql("DROP TABLE " + table)).isInstanceOf(QuiverException.class);
    ctx.sql("DROP TABLE IF EXISTS " + table);
  }

  @Test
  void warehouseTablesAreWrittenDeletedAndDropped() throws Exception {
    Path location = warehouse.resolve("db/t");
    writeReadDeleteDrop(
        "lake.db.t",
        () -> FileSystemTables.load(location.toString(), null),
        t -> {
          assertThat(t.properties()).containsKey(TableProperties.DEFAULT_NAME_MAPPING);
          fieldIdsAreInTheFiles(t);
        });
    assertThat(Files.exists(location)).isFalse();
  }

  @Test
  void restCatalogTablesAreWrittenDeletedAndDropped() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "t");
    writeReadDeleteDrop(
        "rest.db.t",
        () -> rest.loadTable(id),
        t -> assertThat(t.location()).startsWith("s3://lake/"));
    assertThat(rest.tableExists(id)).isFalse();
  }

  void freshDuckTable() throws Exception {
    try (Statement s = duck.createStatement()) {
      s.execute("DROP TABLE IF EXISTS t");
    }
  }

  @Test
  void partitionedTablesSplitRowsByTheirTransforms() throws Exception {
    freshDuckTable();
    both("CREATE TABLE $t PARTITIONED BY (month(d), bucket(4, id)) AS " + rows(0, 40), "lake.db.p");
    Table t = FileSystemTables.load(warehouse.resolve("db/p").toString(), null);
    assertThat(t.spec().fields())
        .extracting(f -> f.transform().toString())
        .containsExactly("month", "bucket[4]");
    assertThat(filesHoldOnlyTheirPartition(t)).isGreaterThan(6);
    sameAsDuckDb("lake.db.p");
    both("INSERT INTO $t " + rows(40, 10), "lake.db.p");
    both("DELETE FROM $t WHERE d < DATE '2024-03-01' AND id % 2 = 1", "lake.db.p");
    sameAsDuckDb("lake.db.p");
    filesHoldOnlyTheirPartition(t);
    icebergReadsTheSameRows(t, "lake.db.p");
    ctx.sql("DROP TABLE lake.db.p");
  }

  /** Each data file holds only rows of its partition; returns how many files there are. */
  static int filesHoldOnlyTheirPartition(Table t) throws Exception {
    t.refresh();
    int files = 0;
    PartitionKey key = new PartitionKey(t.spec(), t.schema());
    InternalRecordWrapper wrap = new InternalRecordWrapper(t.schema().asStruct());
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files++;
        StructLike partition = task.file().partition();
        try (CloseableIterable<Record> records =
            Parquet.read(t.io().newInputFile(task.file().location()))
                .project(t.schema())
                .createReaderFunc(f -> GenericParquetReaders.buildReader(t.schema(), f))
                .build()) {
          for (Record r : records) {
            key.partition(wrap.wrap(r));
            for (int i = 0; i < key.size(); i++) {
              assertThat(key.get(i, Object.class))
                  .as(task.file().location() + " " + r)
                  .isEqualTo(partition.get(i, Object.class));
            }
          }
        }
      }
    }
    return files;
  }

  @Test
  void createdTablesTakeInsertsAndKeepNotNull() throws Exception {
    ctx.sql("CREATE TABLE lake.db.c (id BIGINT NOT NULL, tag VARCHAR) PARTITIONED BY (tag)");
    assertThat(SameRows.quiver(ctx, "SELECT count(*) FROM lake.db.c")).containsExactly("0");
    assertThat(SameRows.quiver(ctx, "INSERT INTO lake.db.c VALUES (1, 'a'), (2, 'b'), (3, NULL)"))
        .containsExactly("3");
    assertThatThrownBy(() -> ctx.sql("INSERT INTO lake.db.c VALUES (4, 'a'), (NULL, 'a')"))
        .isInstanceOf(ConstraintViolationException.class)
        .hasMessageContaining("id");
    assertThatThrownBy(() -> ctx.sql("CREATE TABLE lake.db.c (x INT)"))
        .hasMessageContaining("already exists");
    ctx.sql("CREATE TABLE IF NOT EXISTS lake.db.c (x INT)");
    assertThat(SameRows.quiver(ctx, "SELECT id, tag FROM lake.db.c ORDER BY id"))
        .containsExactly("1|a", "2|b", "3|NULL");
    assertThatThrownBy(() -> ctx.sql("UPDATE lake.db.c SET tag = 'x'"))
        .isInstanceOf(UnsupportedFeatureException.class);
    assertThatThrownBy(
            () -> ctx.sql("CREATE TABLE lake.db.bad PARTITIONED BY (bucket(id)) AS SELECT 1 AS id"))
        .hasMessageContaining("bucket");
    assertThat(Files.exists(warehouse.resolve("db/bad"))).isFalse();
    ctx.sql("DROP TABLE lake.db.c");
  }

  @Test
  void concurrentInsertsFromTwoSessionsAllLand() throws Exception {
    twoSessionsInsertFiftyRowsEach(
        "lake.db.n", () -> FileSystemTables.load(warehouse.resolve("db/n").toString(), null));
  }

  /** The same through the REST catalog, its files on S3: every commit is a catalog request. */
  @Test
  @Tag("slow")
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void concurrentInsertsThroughTheRestCatalogAllLand() throws Exception {
    twoSessionsInsertFiftyRowsEach(
        "rest.db.n", () -> rest.loadTable(TableIdentifier.of("db", "n")));
  }

  /** Two sessions each commit 50 one-row INSERTs into {@code name} at once: all 100 land. */
  void twoSessionsInsertFiftyRowsEach(String name, java.util.concurrent.Callable<Table> load)
      throws Exception {
    ctx.sql("CREATE TABLE " + name + " (id INT, who VARCHAR)");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (SessionContext a = session();
        SessionContext b = session()) {
      List<Future<?>> done = new ArrayList<>();
      for (String who : List.of("a", "b")) {
        SessionContext s = who.equals("a") ? a : b;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    s.sql("INSERT INTO " + name + " VALUES (" + i + ", '" + who + "')");
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    try {
      assertThat(
              SameRows.quiver(
                  ctx, "SELECT who, count(*), count(DISTINCT id) FROM " + name + " GROUP BY who"))
          .containsExactlyInAnyOrder("a|50|50", "b|50|50");
      // One snapshot per INSERT (the CREATE of an empty table has none).
      assertThat(load.call().snapshots()).hasSize(100);
    } finally {
      ctx.sql("DROP TABLE " + name);
    }
  }

  @Test
  void aFailedInsertChangesNothing() throws Exception {
    Path location = warehouse.resolve("db/f");
    ctx.sql("CREATE TABLE lake.db.f AS SELECT * FROM (VALUES (1, 'a')) AS v(id, s)");
    Table t = FileSystemTables.load(location.toString(), null);
    // A file per batch, so that files are written before the failing batch.
    t.updateProperties().set(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "1").commit();
    long snapshot = t.currentSnapshot().snapshotId();
    Set<Path> before = files(location.resolve("data"));
    ctx.sql("CREATE TABLE src AS SELECT * FROM (VALUES ('2'), ('3'), ('x')) AS v(s)");
    try {
      assertThatThrownBy(
              () ->
                  ctx.sql(
                      "INSERT INTO lake.db.f SELECT CAST(s AS INT), s FROM src WHERE s <> 'x'"
                          + " UNION ALL SELECT CAST(s AS INT), s FROM src WHERE s = 'x'"))
          .isInstanceOf(QuiverException.class);
    } finally {
      ctx.sql("DROP TABLE src");
    }
    t.refresh();
    assertThat(t.currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(files(location.resolve("data"))).isEqualTo(before);
    assertThat(SameRows.quiver(ctx, "SELECT * FROM lake.db.f")).containsExactly("1|a");
    ctx.sql("DROP TABLE lake.db.f");
  }

  static Set<Path> files(Path dir) throws Exception {
    try (Stream<Path> walk = Files.walk(dir)) {
      return new HashSet<>(walk.filter(Files::isRegularFile).toList());
    }
  }

  /** The data files carry the table's field ids. */
  static void fieldIdsAreInTheFiles(Table table) throws Exception {
    List<Integer> want = table.schema().columns().stream().map(Types.NestedField::fieldId).toList();
    for (DataFile f : table.currentSnapshot().addedDataFiles(table.io())) {
      try (ParquetFileReader r =
          ParquetFileReader.open(new LocalInputFile(Path.of(f.location().replace("file:", ""))))) {
        List<Integer> ids = new ArrayList<>();
        for (Type field : r.getFileMetaData().getSchema().getFields()) {
          ids.add(field.getId() == null ? null : field.getId().intValue());
        }
        assertThat(ids).as(f.location()).isEqualTo(want);
      }
    }
  }
}
