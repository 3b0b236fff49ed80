package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.SqlParseException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.statement.Statement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Statements over files: {@code FROM 'file'}, read_parquet / read_csv with options (both {@code
 * name => value} and DuckDB's {@code name = value}), {@code COPY (query) TO 'file'} in Parquet and
 * CSV, and several statements in one {@code sql()} call. DuckDB reads what COPY writes in the SQL
 * corpus (files_* entries).
 */
@Timeout(120)
class FileStatementsTest {
  @TempDir Path dir;
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(3).withBatchSize(2));
    ctx.sql("CREATE TABLE t(id INTEGER, name VARCHAR, price DECIMAL(10, 2))");
    ctx.sql("INSERT INTO t VALUES (1, 'a', 1.50), (2, 'b;c', 2.25), (3, NULL, 3.00)");
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  private List<String> rows(String sql) {
    List<VectorSchemaRoot> batches = ctx.sql(sql).collect();
    List<String> out = new ArrayList<>();
    try {
      for (VectorSchemaRoot b : batches) {
        for (int r = 0; r < b.getRowCount(); r++) {
          List<String> cells = new ArrayList<>();
          for (FieldVector v : b.getFieldVectors()) {
            Object o = v.getObject(r);
            cells.add(o == null ? "null" : o.toString());
          }
          out.add(String.join("|", cells));
        }
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    return out;
  }

  private String path(String name) {
    return dir.resolve(name).toString().replace("'", "''");
  }

  @Test
  void copyToParquetTakesCompressionAndRowGroupSize() throws Exception {
    assertThat(
            rows(
                "COPY t TO '"
                    + path("z.parquet")
                    + "' (FORMAT PARQUET, COMPRESSION zstd, ROW_GROUP_SIZE 2)"))
        .containsExactly("3");
    assertThat(rows("SELECT id, name, price FROM '" + path("z.parquet") + "' ORDER BY id"))
        .containsExactly("1|a|1.50", "2|b;c|2.25", "3|null|3.00");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:");
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet r =
            s.executeQuery(
                "SELECT count(DISTINCT row_group_id), min(compression), max(compression)"
                    + " FROM parquet_metadata('"
                    + path("z.parquet")
                    + "')")) {
      assertThat(r.next()).isTrue();
      assertThat(r.getInt(1)).isEqualTo(2);
      assertThat(r.getString(2)).isEqualTo("ZSTD");
      assertThat(r.getString(3)).isEqualTo("ZSTD");
    }
    assertThatThrownBy(
            () -> rows("COPY t TO '" + path("t.parquet") + "' (FORMAT PARQUET, COMPRESSION lz9)"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("lz9");
    assertThatThrownBy(
            () -> rows("COPY t TO '" + path("t.parquet") + "' (FORMAT PARQUET, ROW_GROUP_SIZE 0)"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("ROW_GROUP_SIZE");
  }

  @Test
  void copyToParquetThenReadTheFileWhereATableStands() {
    assertThat(
            rows(
                "COPY (SELECT * FROM t WHERE id > 1) TO '"
                    + path("t.parquet")
                    + "' (FORMAT PARQUET)"))
        .containsExactly("2");
    assertThat(Files.isRegularFile(dir.resolve("t.parquet"))).isTrue();
    assertThat(rows("SELECT id, name, price FROM '" + path("t.parquet") + "' ORDER BY id"))
        .containsExactly("2|b;c|2.25", "3|null|3.00");
    assertThat(
            rows(
                "SELECT read_parquet.id FROM read_parquet('"
                    + path("t.parquet")
                    + "') WHERE price > 2.5"))
        .containsExactly("3");
    // COPY replaces the file; the catalog keeps none of the statement's file tables.
    rows("COPY t TO '" + path("t.parquet") + "'");
    assertThat(rows("SELECT COUNT(*) FROM TABLE(read_parquet('" + path("t.parquet") + "')) AS f"))
        .containsExactly("3");
    assertThat(rows("SHOW TABLES")).containsExactly("t");
    assertThat(
            rows(
                "SELECT COUNT(*) FROM (SELECT id FROM '" + path("t.parquet") + "' WHERE id > 1) s"))
        .containsExactly("2");
  }

  @Test
  void aStringAfterAnExpressionsFromIsNoFile() {
    // Regression: FuzzTest's "x IS DISTINCT FROM 'a'" became a read_parquet call.
    assertThat(
            rows(
                "SELECT 'a' IS DISTINCT FROM 'b', 'a' IS NOT DISTINCT FROM 'a',"
                    + " trim(LEADING 'x' FROM 'xxa'), substring('abc' FROM 2)"
                    + " FROM t WHERE name IS DISTINCT FROM 'a' AND id = 2"))
        .containsExactly("true|true|a|bc");
  }

  @Test
  void copyToCsvWithOptionsThenReadCsvWithOptions() throws IOException {
    rows(
        "COPY (SELECT id, name FROM t ORDER BY id) TO '"
            + path("t.csv")
            + "' (FORMAT CSV, DELIMITER ';', HEADER false)");
    assertThat(Files.readString(dir.resolve("t.csv"), StandardCharsets.UTF_8))
        .isEqualTo("1;a\n2;\"b;c\"\n3;\n");
    assertThat(
            rows(
                "SELECT * FROM read_csv('"
                    + path("t.csv")
                    + "', delim => ';', header => false) ORDER BY 1"))
        .containsExactly("1|a", "2|b;c", "3|null");
    assertThat(
            rows(
                "SELECT COUNT(*) FROM read_csv('"
                    + path("t.csv")
                    + "', delim = ';', header = false, nullstr = 'a')"))
        .containsExactly("3");
    rows("COPY t TO '" + path("t2.csv") + "'");
    assertThat(rows("SELECT name FROM '" + path("t2.csv") + "' WHERE id = 2"))
        .containsExactly("b;c");
  }

  @Test
  void severalStatementsInOneCallRunInOrderAndTheLastIsTheResult() {
    assertThat(
            rows(
                "CREATE TABLE m(x INTEGER); INSERT INTO m VALUES (1), (2);"
                    + " -- a comment; with a semicolon\n"
                    + " INSERT INTO m SELECT x + 10 FROM m; SELECT COUNT(*), SUM(x) FROM m;"))
        .containsExactly("4|26");
    assertThat(rows("SELECT 'a;b' AS s; SELECT 2 AS two")).containsExactly("2");
  }

  /**
   * COPY copies a query's rows: a statement that changes data is refused before it runs, not run
   * with its count written out.
   */
  @Test
  void copyRefusesInsertUpdateAndDeleteBeforeRunningThem() {
    for (String statement :
        List.of(
            "INSERT INTO t VALUES (9, 'z', 9.00)",
            "UPDATE t SET name = 'z'",
            "DELETE FROM t",
            "(INSERT INTO t VALUES (9, 'z', 9.00))")) {
      String sql = "COPY (" + statement + ") TO '" + path("x.csv") + "'";
      // Calcite's grammar has no parenthesised INSERT: that one fails to parse.
      assertThatThrownBy(() -> rows(sql))
          .as(sql)
          .isInstanceOf(SqlParseException.class)
          .hasMessageContaining(
              statement.startsWith("(") ? "Encountered" : "COPY (...) takes a query");
      assertThat(dir.resolve("x.csv")).doesNotExist();
      assertThat(rows("SELECT id, name FROM t ORDER BY id"))
          .containsExactly("1|a", "2|b;c", "3|null");
    }
    // Queries, EXPLAIN and SHOW still copy.
    assertThat(rows("COPY (SHOW TABLES) TO '" + path("tables.csv") + "'")).containsExactly("1");
    assertThat(rows("COPY (EXPLAIN SELECT * FROM t) TO '" + path("plan.csv") + "'"))
        .containsExactly("2");
  }

  /** The executor refuses a COPY whose query changes data even if the parser let it through. */
  @Test
  void theExecutorRunsNoStatementThatChangesDataForCopy() {
    try (SessionState state = new SessionState(new SessionConfig())) {
      new StatementRunner(state).run("CREATE TABLE u (a INT)");
      Statement.Copy copy =
          new Statement.Copy(
              new Statement.Other(new Statement.SqlText("INSERT INTO u VALUES (1)", 1, 7)),
              path("u.csv"),
              Map.of());
      assertThatThrownBy(() -> new StatementExecutor(state).execute(copy))
          .isInstanceOfSatisfying(SqlParseException.class, e -> assertThat(e.column()).isEqualTo(7))
          .hasMessageContaining(
              "COPY (...) takes a query, EXPLAIN, DESCRIBE or SHOW TABLES, not INSERT");
      assertThat(dir.resolve("u.csv")).doesNotExist();
      List<VectorSchemaRoot> batches =
          new StatementRunner(state).run("SELECT count(*) FROM u").collect();
      try {
        assertThat(batches.get(0).getVector(0).getObject(0)).isEqualTo(0L);
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
    }
  }

  @Test
  void aParquetFileThatIsCsvOrTheReverseSaysWhatItLooksLike() throws IOException {
    Files.writeString(dir.resolve("really-csv.parquet"), "id;name\n1;a\n");
    assertThatThrownBy(() -> rows("SELECT * FROM '" + path("really-csv.parquet") + "'"))
        .isInstanceOf(dev.quiver.binding.errors.DataSourceException.class)
        .hasMessageContaining("really-csv.parquet is not a valid Parquet file: it holds text")
        .hasMessageContaining("looks like CSV (its first line is 'id;name')")
        .hasMessageContaining("read_csv(");
    rows("COPY t TO '" + path("really-parquet.csv") + "' (FORMAT PARQUET)");
    assertThatThrownBy(() -> rows("SELECT * FROM '" + path("really-parquet.csv") + "'"))
        .isInstanceOf(dev.quiver.binding.errors.DataSourceException.class)
        .hasMessageContaining("really-parquet.csv is a Parquet file")
        .hasMessageContaining("read_parquet(");
  }

  @Test
  void badFilesAndOptionsAreTypedErrorsNamingThem() {
    assertThatThrownBy(() -> rows("SELECT * FROM '" + path("missing.parquet") + "'"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("missing.parquet");
    assertThatThrownBy(
            () -> rows("SELECT * FROM read_csv('" + path("x.csv") + "', colour => 'red')"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("colour");
    assertThatThrownBy(() -> rows("SELECT * FROM read_parquet(42)"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("read_parquet");
    assertThatThrownBy(() -> rows("COPY t TO '" + path("t.json") + "'"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("FORMAT");
    assertThatThrownBy(
            () -> rows("COPY t TO '" + path("t.parquet") + "' (FORMAT PARQUET, DELIMITER ';')"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("delimiter");
    assertThat(rows("SHOW TABLES")).containsExactly("t");
  }
}
