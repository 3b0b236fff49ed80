package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parquet files with structs, lists, maps, TIME and timestamps with and without a time zone,
 * written by DuckDB and read by Quiver: projected whole, taken apart ({@code n.s.a}, {@code
 * s['b']}, {@code l[1]}, {@code m['k']}, {@code cardinality}) and carried through filters, sorts,
 * joins and unions, checked against DuckDB reading the same files at 1 and 4 partitions and two
 * batch sizes. Grouping, joining on, sorting by or comparing nested values fail typed.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
public class NestedParquetTest {
  @TempDir Path tmp;

  /** Rows per file; {@link #write} writes four files. */
  private static final int ROWS = 500;

  /**
   * Queries over table n as {Quiver's SQL, DuckDB's SQL} (the same text unless the dialects differ:
   * DuckDB's len(l) is cardinality(l)).
   */
  public static final String[][] QUERIES = {
    {"SELECT id, s, l, m, ls, t, tz, ts FROM n"},
    {"SELECT * FROM n WHERE id % 97 = 3"},
    {"SELECT id, n.s.a, n.s.b, n.s.c.d, n.s.c.e FROM n WHERE id < 60 ORDER BY id"},
    {
      "SELECT id, s['b'] AS b, l[1] AS l1, l[3] AS l3, l[5] AS l5, l[-1] AS lz, l[0] AS l0,"
          + " m['k'] AS mk, m['z1'] AS mz, m['nope'] AS mn FROM n ORDER BY id"
    },
    {"SELECT id, ls[1]['x'] AS x, ls[1]['y'] AS y FROM n WHERE ls[1]['x'] > 5 ORDER BY id"},
    {
      "SELECT id, cardinality(l) AS nl, cardinality(m) AS nm FROM n ORDER BY id",
      "SELECT id, len(l) AS nl, cardinality(m) AS nm FROM n ORDER BY id"
    },
    {
      "SELECT count(*) AS c, count(s) AS cs, count(l) AS cl, count(m) AS cm, sum(n.s.a) AS sa"
          + " FROM n WHERE n.s.b = 'x3'"
    },
    {
      "SELECT n.s.b AS b, count(*) AS c, sum(l[1]) AS l1, max(m['k']) AS mk FROM n"
          + " GROUP BY n.s.b ORDER BY b NULLS FIRST"
    },
    {
      "SELECT a.id, b.s, b.l, b.m, b.t FROM n a JOIN n b ON a.id = b.id + 1"
          + " WHERE a.id % 10 = 0 ORDER BY a.id"
    },
    {"SELECT a.id, b.ls FROM n a LEFT JOIN n b ON a.id = b.id + 5000 WHERE a.id < 30"},
    {"SELECT id, s, l, m FROM n ORDER BY id DESC LIMIT 30"},
    {"SELECT s, m, t, id FROM n WHERE id % 3 = 0 ORDER BY t, id"},
    {"SELECT id, t, tz, ts FROM n WHERE ts > TIMESTAMP '2024-03-20 00:00:00' ORDER BY ts"},
    {"SELECT id, tz FROM n WHERE tz >= TIMESTAMP '2024-03-01 09:00:00' AND id < 200 ORDER BY tz"},
    {"SELECT id, t FROM n ORDER BY t DESC, id LIMIT 20"},
    {"SELECT s, l FROM n WHERE id < 3 UNION ALL SELECT s, l FROM n WHERE id > 1995"},
    {"SELECT count(*) AS c FROM n WHERE s IS NULL OR l IS NULL OR m IS NULL"},
    {
      "SELECT s.a, s.c.e, x.s.b FROM n x WHERE s.c.d > 10 AND x.s.a < 100"
          + " AND s.b IN (SELECT s.b FROM n y WHERE y.id = x.id) ORDER BY s.a"
    },
    {"SELECT s.b AS b, count(*) AS c FROM n GROUP BY s.b HAVING max(s.a) > 10 ORDER BY s.b"},
    {"SELECT s.a FROM n WHERE id < 9 UNION SELECT x.s.a FROM n x WHERE id > 1990 ORDER BY a"},
  };

  /** Statements that must fail with a typed error naming the nested type. */
  public static final String[] REFUSED = {
    "SELECT s, count(*) AS c FROM n GROUP BY s",
    "SELECT DISTINCT l FROM n",
    "SELECT a.id FROM n a JOIN n b ON a.s = b.s",
    "SELECT id FROM n ORDER BY m",
    "SELECT max(s) AS x FROM n",
    "SELECT id FROM n WHERE l <> n.s.c.e",
    "SELECT s, count(*) AS c FROM n WHERE s.a > 1 GROUP BY s",
    "SELECT id, first_value(l) OVER (ORDER BY id) AS f FROM n",
    "SELECT id, CASE WHEN id > 5 THEN l ELSE n.s.c.e END AS x FROM n",
  };

  /**
   * Writes four Parquet files of {@value #ROWS} rows each under {@code dir/nested}: struct s (with
   * a nested struct holding a list), list l (NULL, empty or with NULL elements), map m, list of
   * structs ls, TIME t, TIMESTAMP WITH TIME ZONE tz and TIMESTAMP ts.
   */
  public static Path write(Path dir) throws Exception {
    Path out = Files.createDirectories(dir.resolve("nested"));
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute("SET TimeZone = 'UTC'");
      for (int f = 0; f < 4; f++) {
        s.execute(
            "COPY (SELECT i AS id,"
                + " CASE WHEN i % 7 = 0 THEN NULL ELSE {'a': i, 'b': 'x' || (i % 13),"
                + " 'c': {'d': (i * 0.5)::DOUBLE, 'e': [i, NULL]}} END AS s,"
                + " CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN []::BIGINT[]"
                + " ELSE [i, i + 1, NULL, i % 3] END AS l,"
                + " CASE WHEN i % 6 = 0 THEN NULL ELSE MAP {'k': i, 'z' || (i % 4): -i} END AS m,"
                + " [{'x': i % 10, 'y': 'v' || i}, {'x': NULL, 'y': NULL}] AS ls,"
                + " TIME '00:00:00' + INTERVAL (i * 37) SECOND + INTERVAL (i % 1000) MICROSECOND AS t,"
                + " TIMESTAMPTZ '2024-03-01 10:00:00+02' + INTERVAL (i) MINUTE AS tz,"
                + " TIMESTAMP '2024-03-01 10:00:00.123456' + INTERVAL (i) HOUR AS ts"
                + " FROM range("
                + (f * ROWS)
                + ", "
                + ((f + 1) * ROWS)
                + ") r(i)) TO '"
                + out.resolve("part-" + f + ".parquet")
                + "' (FORMAT PARQUET)");
      }
    }
    return out;
  }

  /** DuckDB's rows for {@code sql} over table n read from {@code dir}. */
  public static List<String> duckdb(Path dir, String sql) throws Exception {
    return SameRows.duckdb("n", "SELECT * FROM read_parquet('" + dir + "/*.parquet')", sql);
  }

  /** DuckDB's answers by folder and query, computed once for every configuration. */
  private static final java.util.Map<String, List<String>> ANSWERS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Runs every query of {@link #QUERIES} on {@code ctx} (table n registered) against DuckDB. */
  public static void checkAll(SessionContext ctx, Path dir) throws Exception {
    for (String[] q : QUERIES) {
      String quiver = q[0];
      String duck = q.length > 1 ? q[1] : q[0];
      String key = dir + "\n" + duck;
      List<String> want = ANSWERS.get(key);
      if (want == null) {
        want = duckdb(dir, duck);
        ANSWERS.put(key, want);
      }
      assertThat(want).as(duck).isNotEmpty();
      SameRows.same(want, SameRows.quiver(ctx, quiver), quiver);
    }
  }

  /** Every statement of {@link #REFUSED} fails typed, naming what it cannot do. */
  public static void checkRefused(SessionContext ctx) {
    for (String sql : REFUSED) {
      assertThatThrownBy(() -> SameRows.quiver(ctx, sql))
          .as(sql)
          .isInstanceOf(dev.quiver.binding.errors.QuiverException.class)
          .hasMessageMatching("(?s).*(STRUCT|LIST|MAP).*");
    }
  }

  @Test
  void nestedColumnsMatchDuckDb() throws Exception {
    Path dir = write(tmp);
    for (int partitions : new int[] {1, 4}) {
      for (int batch : new int[] {7, 4096}) {
        try (SessionContext ctx =
            new SessionContext(
                new SessionConfig().withTargetPartitions(partitions).withBatchSize(batch))) {
          ctx.registerParquet("n", dir.toString());
          checkAll(ctx, dir);
        }
      }
    }
  }

  @Test
  void schemaHasNestedTypes() throws Exception {
    Path dir = write(tmp);
    try (SessionContext ctx = new SessionContext(new SessionConfig())) {
      ctx.registerParquet("n", dir.toString());
      Schema schema = ctx.sql("SELECT * FROM n").schema();
      assertThat(schema.findField("s").getType()).isInstanceOf(ArrowType.Struct.class);
      assertThat(schema.findField("s").getChildren())
          .extracting(f -> f.getName())
          .containsExactly("a", "b", "c");
      assertThat(schema.findField("l").getType()).isInstanceOf(ArrowType.List.class);
      assertThat(schema.findField("m").getType()).isInstanceOf(ArrowType.Map.class);
      assertThat(schema.findField("t").getType()).isInstanceOf(ArrowType.Time.class);
      assertThat(schema.findField("tz").getType()).isInstanceOf(ArrowType.Timestamp.class);
    }
  }

  /**
   * DESCRIBE, information_schema.columns and a view's DESCRIBE write nested types as DuckDB's
   * DESCRIBE does (STRUCT(a BIGINT, ...), BIGINT[], MAP(VARCHAR, BIGINT)); tz is left out, as
   * Quiver reads DuckDB's TIMESTAMPTZ as TIMESTAMP (the README's Parquet types table).
   */
  @Test
  void describeWritesNestedTypesAsDuckDb() throws Exception {
    Path dir = write(tmp);
    List<String> duckdb =
        new java.util.ArrayList<>(
            SameRows.duckdb(
                "n",
                "SELECT * FROM read_parquet('" + dir + "/*.parquet')",
                "SELECT column_name, column_type FROM (DESCRIBE n) WHERE column_name <> 'tz'"));
    assertThat(duckdb)
        .contains(
            "s|STRUCT(a BIGINT, b VARCHAR, c STRUCT(d DOUBLE, e BIGINT[]))",
            "l|BIGINT[]",
            "m|MAP(VARCHAR, BIGINT)",
            "ls|STRUCT(x BIGINT, y VARCHAR)[]");
    try (SessionContext ctx = new SessionContext(new SessionConfig())) {
      ctx.registerParquet("n", dir.toString());
      ctx.sql("CREATE VIEW nv AS SELECT * FROM n");
      for (String sql : List.of("DESCRIBE n", "DESCRIBE nv")) {
        // column_name|column_type|null|key|default|extra: the first two, as DuckDB's.
        List<String> got =
            SameRows.quiver(ctx, sql).stream()
                .map(r -> r.split("\\|"))
                .filter(r -> !r[0].equals("tz"))
                .map(r -> r[0] + "|" + r[1])
                .toList();
        assertThat(got).as(sql).containsExactlyElementsOf(duckdb);
      }
      String columns =
          "SELECT column_name, data_type FROM information_schema.columns"
              + " WHERE table_name = 'n' AND column_name <> 'tz' ORDER BY ordinal_position";
      assertThat(SameRows.quiver(ctx, columns)).containsExactlyElementsOf(duckdb);
    }
  }

  @Test
  void fieldReferencesAreNamedAfterTheField() throws Exception {
    Path dir = write(tmp);
    try (SessionContext ctx = new SessionContext(new SessionConfig())) {
      ctx.registerParquet("n", dir.toString());
      Schema schema = ctx.sql("SELECT s.a, n.s.b, s.c.e, id FROM n").schema();
      assertThat(schema.getFields())
          .extracting(f -> f.getName())
          .containsExactly("a", "b", "e", "id");
      // A table alias comes first: x.id is column id of x, not a field of a column x.
      assertThat(SameRows.quiver(ctx, "SELECT x.id FROM n x WHERE x.id = 3")).containsExactly("3");
      assertThatThrownBy(() -> SameRows.quiver(ctx, "SELECT nope.a FROM n"))
          .isInstanceOf(dev.quiver.binding.errors.UnknownColumnException.class)
          .hasMessageContaining("nope");
    }
  }

  @Test
  void unsupportedUsesFailTyped() throws Exception {
    Path dir = write(tmp);
    try (SessionContext ctx = new SessionContext(new SessionConfig().withTargetPartitions(2))) {
      ctx.registerParquet("n", dir.toString());
      checkRefused(ctx);
      assertThatThrownBy(() -> SameRows.quiver(ctx, "SELECT s FROM n GROUP BY s"))
          .isInstanceOf(QueryTypeException.class)
          .hasMessageContaining("GROUP BY")
          .hasMessageContaining("STRUCT");
      // The session still answers.
      assertThat(SameRows.quiver(ctx, "SELECT count(*) FROM n")).containsExactly("2000");
    }
  }
}
