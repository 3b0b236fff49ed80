package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.UnknownCatalogException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.iceberg.io.QuiverFileIO;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * An Iceberg REST catalog ({@link RestCatalogServer}, Iceberg's own handlers) with the tables'
 * files on S3 (S3Proxy): tables written through the catalog with Iceberg's writers, attached with
 * {@code ATTACH ... (TYPE iceberg_rest, TOKEN ...)} and read as {@code cat.namespace.table}, at
 * their current and earlier snapshots; every answer equals DuckDB's over the rows the table should
 * hold. Also the catalog statements (SHOW TABLES, DESCRIBE, information_schema, DETACH), their
 * typed errors, and that the token never shows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class IcebergRestCatalogTest {
  static final String TOKEN = "tok-5ecret-abc123";
  S3ProxyServer s3;
  RestCatalogServer server;
  RESTCatalog writer;
  IcebergModel events;
  IcebergModel times;
  SessionContext ctx;
  Connection duck;

  /** Iceberg's S3 properties reaching the S3Proxy server, for io-impl QuiverFileIO. */
  static Map<String, String> s3Properties(S3ProxyServer s3) {
    Map<String, String> p = new HashMap<>();
    p.put("io-impl", QuiverFileIO.class.getName());
    p.put("s3.endpoint", s3.endpoint());
    p.put("s3.access-key-id", s3.accessKey());
    p.put("s3.secret-access-key", s3.secret());
    p.put("s3.path-style-access", "true");
    p.put("client.region", "us-east-1");
    return p;
  }

  /** A REST server over a warehouse in bucket {@code lake}, and a writer client of it. */
  static RESTCatalog writer(S3ProxyServer s3, RestCatalogServer server, String token) {
    Map<String, String> props = s3Properties(s3);
    props.put("uri", server.uri());
    if (token != null) {
      props.put("token", token);
    }
    RESTCatalog w = new RESTCatalog();
    w.initialize("writer", props);
    return w;
  }

  static RestCatalogServer server(S3ProxyServer s3, String token) throws Exception {
    Map<String, String> backing = s3Properties(s3);
    backing.put("warehouse", "s3://lake/rest");
    return RestCatalogServer.start(backing, token);
  }

  @BeforeAll
  void start() throws Exception {
    s3 = S3ProxyServer.start();
    s3.createBucket("lake");
    server = server(s3, TOKEN);
    writer = writer(s3, server, TOKEN);
    writer.createNamespace(Namespace.of("db"));
    writer.createNamespace(Namespace.of("other"));
    events = IcebergTables.events(writer, TableIdentifier.of("db", "events"));
    times = IcebergTables.times(writer, TableIdentifier.of("other", "times"));
    ctx = new SessionContext();
    s3.configure(ctx.config());
    ctx.sql(
        "ATTACH '"
            + server.uri()
            + "' AS rest (TYPE iceberg_rest, TOKEN '"
            + TOKEN
            + "', WAREHOUSE 'lake')");
    duck = DriverManager.getConnection("jdbc:duckdb:");
  }

  @AfterAll
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {duck, ctx, writer, server, s3}) {
      if (c != null) {
        c.close();
      }
    }
  }

  @Test
  void tablesThroughTheRestCatalogMatchDuckDb() throws Exception {
    IcebergReadTest.compare(
        ctx,
        duck,
        "rest.db.events",
        events.table.schema(),
        events.live,
        IcebergReadTest.S3_EVENT_QUERIES);
    IcebergReadTest.compare(
        ctx,
        duck,
        "rest.other.times",
        times.table.schema(),
        times.live,
        IcebergReadTest.TIME_QUERIES);
  }

  @Test
  void forVersionAsOfReadsEarlierSnapshots() throws Exception {
    // The first, a middle and the last earlier snapshot (each read is many S3 requests); every
    // snapshot is compared through iceberg_scan on local files in IcebergReadTest.
    List<Long> ids = new ArrayList<>(events.bySnapshot.keySet());
    for (long id : List.of(ids.get(0), ids.get(ids.size() / 2), ids.get(ids.size() - 2))) {
      IcebergReadTest.compare(
          ctx,
          duck,
          "rest.db.events FOR VERSION AS OF " + id,
          SnapshotUtil.schemaFor(events.table, id),
          events.bySnapshot.get(id),
          "SELECT * FROM t",
          "SELECT count(*) FROM t");
    }
    long first = events.bySnapshot.keySet().iterator().next();
    assertThat(
            SameRows.quiver(
                ctx, "SELECT count(*) FROM rest.db.events FOR VERSION AS OF " + first + " AS e"))
        .containsExactly(Integer.toString(events.bySnapshot.get(first).size()));
    assertThatThrownBy(() -> ctx.sql("SELECT * FROM rest.db.events FOR VERSION AS OF 12345"))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining("no snapshot 12345");
  }

  @Test
  void forTimestampAsOfReadsTheSnapshotCurrentThen() throws Exception {
    List<Snapshot> history = new ArrayList<>();
    events.table.refresh();
    events.table.snapshots().forEach(history::add);
    // A snapshot whose successor is strictly later: at its time, it was current.
    for (int i = 0; i < history.size() - 1; i++) {
      Snapshot s = history.get(i);
      if (history.get(i + 1).timestampMillis() > s.timestampMillis()
          && events.bySnapshot.containsKey(s.snapshotId())) {
        String at =
            Instant.ofEpochMilli(s.timestampMillis())
                .atOffset(ZoneOffset.UTC)
                .toLocalDateTime()
                .toString()
                .replace('T', ' ');
        IcebergReadTest.compare(
            ctx,
            duck,
            "rest.db.events FOR TIMESTAMP AS OF TIMESTAMP '" + at + "'",
            SnapshotUtil.schemaFor(events.table, s.snapshotId()),
            events.bySnapshot.get(s.snapshotId()),
            "SELECT * FROM t");
        return;
      }
    }
  }

  @Test
  void catalogStatementsListNamespacesTablesAndColumns() throws Exception {
    assertThat(SameRows.quiver(ctx, "SHOW TABLES FROM rest"))
        .containsExactly("db.events", "other.times");
    assertThat(SameRows.quiver(ctx, "SHOW TABLES FROM rest.db")).containsExactly("events");
    assertThat(SameRows.quiver(ctx, "SHOW TABLES")).contains("rest.db.events", "rest.other.times");
    // SameRows writes SQL NULL as NULL. Iceberg's timestamptz reads as a UTC TIMESTAMP (README,
    // IcebergTypes: the engine's one timestamp type), and DESCRIBE shows the type a query returns.
    assertThat(SameRows.quiver(ctx, "DESCRIBE rest.other.times"))
        .containsExactly(
            "id|BIGINT|NO|NULL|NULL|NULL",
            "ts|TIMESTAMP|YES|NULL|NULL|NULL",
            "tstz|TIMESTAMP|YES|NULL|NULL|NULL",
            "flag|BOOLEAN|YES|NULL|NULL|NULL");
    assertThat(ctx.sql("SELECT tstz FROM rest.other.times").schema().findField("tstz").getType())
        .isInstanceOfSatisfying(
            org.apache.arrow.vector.types.pojo.ArrowType.Timestamp.class,
            t -> assertThat(t.getTimezone()).isNull());
    assertThat(
            SameRows.quiver(
                ctx,
                "SELECT table_schema, table_name FROM information_schema.tables"
                    + " WHERE table_catalog = 'rest' ORDER BY 1, 2"))
        .containsExactly("db|events", "other|times");
    assertThat(
            SameRows.quiver(
                ctx,
                "SELECT column_name, data_type, is_nullable FROM information_schema.columns"
                    + " WHERE table_catalog = 'rest' AND table_name = 'times'"
                    + " ORDER BY ordinal_position"))
        .containsExactly(
            "id|BIGINT|NO", "ts|TIMESTAMP|YES", "tstz|TIMESTAMP|YES", "flag|BOOLEAN|YES");
  }

  @Test
  void unknownNamesGiveTypedErrors() {
    assertThatThrownBy(() -> ctx.sql("SHOW TABLES FROM rst"))
        .isInstanceOf(UnknownCatalogException.class)
        .hasMessageContaining("'rst'")
        .hasMessageContaining("did you mean 'rest'");
    assertThatThrownBy(() -> ctx.sql("SHOW TABLES FROM rest.nowhere"))
        .isInstanceOf(UnknownCatalogException.class)
        .hasMessageContaining("Namespace 'nowhere' not found in catalog 'rest'");
    assertThatThrownBy(() -> ctx.sql("DESCRIBE rest.db.evnts"))
        .isInstanceOf(UnknownTableException.class)
        .hasMessageContaining("rest.db.evnts")
        .hasMessageContaining("did you mean 'events'");
    assertThatThrownBy(() -> ctx.sql("SELECT * FROM rest.db.evnts FOR VERSION AS OF 1"))
        .isInstanceOf(UnknownTableException.class)
        .hasMessageContaining("rest.db.evnts");
    assertThatThrownBy(() -> ctx.sql("SELECT * FROM rest.db.nothing"))
        .hasMessageContaining("nothing");
    assertThatThrownBy(() -> ctx.sql("DETACH nope"))
        .isInstanceOf(UnknownCatalogException.class)
        .hasMessageContaining("'nope'");
    ctx.sql("DETACH IF EXISTS nope");
    assertThatThrownBy(() -> ctx.sql("ATTACH 'x' AS y (TYPE nosuch)"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("nosuch")
        .hasMessageContaining("iceberg_rest");
  }

  @Test
  void secretsNeverShow() throws Exception {
    // A wrong token: the catalog refuses; neither token is in the error.
    String wrong = "wrong-5ecret-zzz987";
    assertThatThrownBy(
            () ->
                ctx.sql(
                    "ATTACH '"
                        + server.uri()
                        + "' AS bad (TYPE iceberg_rest, TOKEN '"
                        + wrong
                        + "')"))
        .isInstanceOf(QuiverException.class)
        .satisfies(
            e -> {
              assertThat(String.valueOf(e.getMessage()))
                  .doesNotContain(wrong)
                  .doesNotContain(TOKEN);
              for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                assertThat(String.valueOf(c.getMessage())).doesNotContain(wrong);
              }
            });
    assertThat(ctx.catalogNames()).doesNotContain("bad");
    // A malformed option list shows no option value.
    assertThatThrownBy(
            () -> ctx.sql("ATTACH 'http://h' AS b (TOKEN '" + wrong + "' '" + wrong + "')"))
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(wrong));
    TableCatalog rest = ctx.catalog("rest");
    assertThat(rest.toString()).doesNotContain(TOKEN).contains("rest");
    String plan =
        String.join(
            "\n", SameRows.quiver(ctx, "EXPLAIN SELECT * FROM rest.db.events WHERE id = 1"));
    assertThat(plan).doesNotContain(TOKEN).contains("rest.db.events");
    assertThat(
            dev.quiver.binding.statement.StatementParser.parse(
                    "ATTACH '" + server.uri() + "' AS x (TYPE iceberg_rest, TOKEN '" + TOKEN + "')")
                .toString())
        .doesNotContain(TOKEN);
  }

  @Test
  void attachByApiAndDetach() throws Exception {
    TableCatalog c =
        ctx.attachCatalog("rest2", "iceberg_rest", server.uri(), Map.of("token", TOKEN));
    try {
      assertThat(c.namespaces()).containsExactly("db", "other");
      assertThat(SameRows.quiver(ctx, "SELECT count(*) FROM rest2.other.times"))
          .containsExactly(Integer.toString(times.live.size()));
      assertThatThrownBy(() -> ctx.attachCatalog("rest2", "iceberg", server.uri(), Map.of()))
          .hasMessageContaining("already attached");
    } finally {
      ctx.sql("DETACH rest2");
    }
    assertThat(ctx.catalogNames()).doesNotContain("rest2");
    assertThatThrownBy(() -> ctx.sql("SELECT count(*) FROM rest2.other.times"))
        .hasMessageContaining("rest2");
  }

  @Test
  void everyStatementSeesTheCatalogsCurrentSnapshot() throws Exception {
    IcebergModel grow = IcebergTables.few(writer, TableIdentifier.of("db", "grow"));
    String count = "SELECT count(*) FROM rest.db.grow";
    assertThat(SameRows.quiver(ctx, count)).containsExactly(Integer.toString(grow.live.size()));
    grow.append(List.of(Map.of("id", 1000L, "flag", true), Map.of("id", 1001L, "flag", false)));
    assertThat(SameRows.quiver(ctx, count)).containsExactly(Integer.toString(grow.live.size()));
    writer.dropTable(TableIdentifier.of("db", "grow"), false);
  }
}
