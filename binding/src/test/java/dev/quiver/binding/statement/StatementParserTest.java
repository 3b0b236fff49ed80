package dev.quiver.binding.statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.datasource.WritableTableCatalog.PartitionField;
import dev.quiver.binding.errors.SqlParseException;
import dev.quiver.binding.statement.Statement.ColumnType;
import dev.quiver.binding.statement.Statement.SqlText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The statement grammar on its own: each form parses to its typed statement, quotes, comments and
 * nested parentheses stay where they belong, embedded queries keep their position in the user's
 * text, and each malformed form is a {@link SqlParseException} naming what was expected and where.
 */
class StatementParserTest {
  private static Statement parse(String sql) {
    return StatementParser.parse(sql);
  }

  @Test
  void attachAndDetachCatalogs() {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("warehouse", "main");
    options.put("token", "t0ken");
    options.put("s3.access-key-id", "k");
    assertThat(
            parse(
                "ATTACH 'http://h:8181/api' AS Lake (TYPE ICEBERG_REST, WAREHOUSE 'main',"
                    + " token = 't0ken', s3.access-key-id 'k');"))
        .isEqualTo(new Statement.Attach("http://h:8181/api", "lake", "iceberg_rest", options));
    assertThat(parse("ATTACH DATABASE '/data/wh' AS w"))
        .isEqualTo(new Statement.Attach("/data/wh", "w", null, Map.of()));
    assertThat(parse("ATTACH 'http://u:pw@h' AS x (TOKEN 'hunter2')").toString())
        .doesNotContain("hunter2")
        .doesNotContain("pw");
    assertThat(parse("DETACH lake")).isEqualTo(new Statement.Detach("lake", false));
    assertThat(parse("DETACH DATABASE IF EXISTS \"L\"")).isEqualTo(new Statement.Detach("L", true));
    assertThat(parse("SHOW TABLES FROM lake.db"))
        .isEqualTo(new Statement.ShowTables(List.of("lake", "db")));
    assertThat(parse("SHOW TABLES IN lake")).isEqualTo(new Statement.ShowTables(List.of("lake")));
    assertThat(parse("DESCRIBE lake.db.\"Events\""))
        .isEqualTo(new Statement.Describe(List.of("lake", "db", "Events")));
    assertError("ATTACH lake", "expected a quoted catalog URI or path after ATTACH", 1, 8);
    // A malformed option list never shows a value (it may be a token).
    assertError(
        "ATTACH 'http://h' AS x (TOKEN 'hunter2' 'hunter3')",
        "expected ')' after ATTACH's options, found a string literal",
        1,
        41);
    assertError("SHOW TABLES FROM a.b.c", "takes a catalog or catalog.namespace", 1, 17);
  }

  @Test
  void setTakesEqualsOrToAndALiteralOrRawValue() {
    assertThat(parse("SET quiver.execution.spill_directory TO '/tmp/a b'"))
        .isEqualTo(new Statement.SetOption("quiver.execution.spill_directory", "/tmp/a b"));
    assertThat(parse("set x.y = 'it''s' -- a comment"))
        .isEqualTo(new Statement.SetOption("x.y", "it's"));
    assertThat(parse("SET quiver.execution.batch_size=8192;"))
        .isEqualTo(new Statement.SetOption("quiver.execution.batch_size", "8192"));
    assertThat(parse("SET \"a b\".c = 64MB")).isEqualTo(new Statement.SetOption("a b.c", "64MB"));
  }

  @Test
  void createExternalTableReadsColumnsFormatLocationAndOptions() {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("delimiter", ";");
    options.put("header", "false");
    options.put("quote", ")");
    assertThat(
            parse(
                "CREATE EXTERNAL TABLE IF NOT EXISTS \"My Data\" (\n"
                    + "  id INT NOT NULL, price DECIMAL(10, 2), \"a,b)\" VARCHAR NULL)\n"
                    + "STORED AS csv LOCATION 'it''s.csv'\n"
                    + "OPTIONS ('format.delimiter' ';', header = 'false', /* ) */ 'quote' ')',)"))
        .isEqualTo(
            new Statement.CreateExternalTable(
                "My Data",
                true,
                List.of(
                    new ColumnType("id", "INT", true),
                    new ColumnType("price", "DECIMAL(10, 2)", false),
                    new ColumnType("a,b)", "VARCHAR", false)),
                "CSV",
                "it's.csv",
                options));
    assertThat(parse("create external table t stored as PARQUET location 's3://b/k/'"))
        .isEqualTo(
            new Statement.CreateExternalTable(
                "t", false, List.of(), "PARQUET", "s3://b/k/", Map.of()));
  }

  @Test
  void createTableKeepsItsElementsAndQueryText() {
    assertThat(parse("CREATE TABLE T (a DECIMAL(10, 2) DEFAULT 0, b VARCHAR DEFAULT ')');"))
        .isEqualTo(
            new Statement.CreateTable(
                "t", false, false, "a DECIMAL(10, 2) DEFAULT 0, b VARCHAR DEFAULT ')'"));
    assertThat(parse("CREATE OR REPLACE TABLE IF NOT EXISTS \"x y\" AS\n  SELECT 1 AS one"))
        .isEqualTo(
            new Statement.CreateTableAs("x y", true, true, new SqlText("SELECT 1 AS one", 2, 3)));
    assertThat(parse("CREATE TABLE t AS(SELECT 1)"))
        .isEqualTo(
            new Statement.CreateTableAs("t", false, false, new SqlText("(SELECT 1)", 1, 18)));
  }

  @Test
  void catalogTablesTakePartitioningAndDottedNames() {
    assertThat(
            parse(
                "CREATE TABLE lake.db.\"T\" PARTITIONED BY (Month(d), bucket(16, id), c)\n"
                    + "AS SELECT 1"))
        .isEqualTo(
            new Statement.CreateCatalogTable(
                List.of("lake", "db", "T"),
                false,
                null,
                List.of(
                    new PartitionField("month", null, "d"),
                    new PartitionField("bucket", 16, "id"),
                    new PartitionField("identity", null, "c")),
                new SqlText("SELECT 1", 2, 4)));
    assertThat(parse("CREATE TABLE IF NOT EXISTS c.n.t (a INT NOT NULL) PARTITIONED BY (a)"))
        .isEqualTo(
            new Statement.CreateCatalogTable(
                List.of("c", "n", "t"),
                true,
                "a INT NOT NULL",
                List.of(new PartitionField("identity", null, "a")),
                null));
    assertThat(parse("DROP TABLE IF EXISTS c.n.t"))
        .isEqualTo(new Statement.DropCatalogTable(List.of("c", "n", "t"), true));
    assertThatThrownBy(() -> parse("CREATE TABLE t PARTITIONED BY (a) AS SELECT 1"))
        .isInstanceOf(SqlParseException.class)
        .hasMessageContaining("attached catalog");
    assertThatThrownBy(() -> parse("CREATE OR REPLACE TABLE c.n.t AS SELECT 1"))
        .isInstanceOf(SqlParseException.class)
        .hasMessageContaining("DROP TABLE c.n.t first");
    assertThatThrownBy(() -> parse("CREATE TABLE c.n.t PARTITIONED BY (bucket(x, 4)) AS SELECT 1"))
        .isInstanceOf(SqlParseException.class);
  }

  @Test
  void createViewNamesItsColumns() {
    assertThat(parse("CREATE OR REPLACE VIEW v (\"total (usd)\", N) AS SELECT 1, 2"))
        .isEqualTo(
            new Statement.CreateView(
                "v", true, List.of("total (usd)", "n"), new SqlText("SELECT 1, 2", 1, 48)));
    assertThat(parse("CREATE VIEW v AS /* why */ SELECT 1"))
        .isEqualTo(new Statement.CreateView("v", false, List.of(), new SqlText("SELECT 1", 1, 28)));
  }

  @Test
  void dropShowDescribeAndExplain() {
    assertThat(parse("DROP VIEW IF EXISTS \"x y\" -- gone"))
        .isEqualTo(new Statement.Drop(true, "x y", true));
    assertThat(parse("drop table T")).isEqualTo(new Statement.Drop(false, "t", false));
    assertThat(parse("SHOW TABLES;")).isEqualTo(new Statement.ShowTables());
    assertThat(parse("SHOW COLUMNS IN T")).isEqualTo(new Statement.Describe("t"));
    assertThat(parse("DESC TABLE \"Mixed Case\"")).isEqualTo(new Statement.Describe("Mixed Case"));
    assertThat(parse("DESCRIBE table")).isEqualTo(new Statement.Describe("table"));
    assertThat(parse("EXPLAIN ANALYZE\n SELECT 1"))
        .isEqualTo(new Statement.Explain(true, new SqlText("SELECT 1", 2, 2)));
    assertThat(parse("EXPLAIN PLAN FOR SELECT 1"))
        .isEqualTo(new Statement.Other(new SqlText("EXPLAIN PLAN FOR SELECT 1", 1, 1)));
  }

  @Test
  void copyFindsItsQueryPastQuotesCommentsAndParentheses() {
    String query = "SELECT ')' AS p, (1) AS q /* ) TO 'x' */ FROM t";
    Map<String, String> options = new LinkedHashMap<>();
    options.put("format", "csv");
    options.put("delimiter", ")");
    options.put("header", "true");
    assertThat(parse("COPY (" + query + ") TO 'o.csv' WITH (FORMAT csv, DELIMITER ')', HEADER)"))
        .isEqualTo(
            new Statement.Copy(new Statement.Other(new SqlText(query, 1, 7)), "o.csv", options));
    assertThat(parse("COPY \"my t\" TO 'x.parquet' -- done"))
        .isEqualTo(
            new Statement.Copy(
                new Statement.Other(new SqlText("SELECT * FROM \"my t\"", 1, 1)),
                "x.parquet",
                Map.of()));
    assertThat(parse("COPY (SHOW TABLES) TO 'x.csv'"))
        .isEqualTo(new Statement.Copy(new Statement.ShowTables(), "x.csv", Map.of()));
  }

  @Test
  void aSemicolonEndsASetValue() {
    assertThat(parse("SET quiver.execution.batch_size = 8192; -- smaller batches"))
        .isEqualTo(new Statement.SetOption("quiver.execution.batch_size", "8192"));
    assertThat(parse("SET x TO 'a b'; /* why */")).isEqualTo(new Statement.SetOption("x", "a b"));
  }

  @Test
  void ifIsANameWhenNoNotOrExistsFollows() {
    assertThat(parse("CREATE TABLE if (a INT)"))
        .isEqualTo(new Statement.CreateTable("if", false, false, "a INT"));
    assertThat(parse("CREATE TABLE IF NOT EXISTS if AS SELECT 1"))
        .isEqualTo(new Statement.CreateTableAs("if", false, true, new SqlText("SELECT 1", 1, 34)));
    assertThat(parse("CREATE EXTERNAL TABLE If STORED AS CSV LOCATION 'f'"))
        .isEqualTo(new Statement.CreateExternalTable("if", false, List.of(), "CSV", "f", Map.of()));
    assertThat(parse("DROP TABLE if")).isEqualTo(new Statement.Drop(false, "if", false));
    assertThat(parse("DROP VIEW IF EXISTS if")).isEqualTo(new Statement.Drop(true, "if", true));
  }

  @Test
  void anEmptyExternalColumnListDeclaresNoColumns() {
    assertThat(parse("CREATE EXTERNAL TABLE t () STORED AS PARQUET LOCATION 'f'"))
        .isEqualTo(
            new Statement.CreateExternalTable("t", false, List.of(), "PARQUET", "f", Map.of()));
  }

  @Test
  void everyOtherStatementIsLeftToCalcite() {
    assertThat(parse("  SELECT 1;; "))
        .isEqualTo(new Statement.Other(new SqlText("  SELECT 1", 1, 1)));
    assertThat(parse("INSERT INTO t VALUES (')')"))
        .isEqualTo(new Statement.Other(new SqlText("INSERT INTO t VALUES (')')", 1, 1)));
    assertThat(StatementParser.leadingWord("/* c */ -- d\n insert into t")).isEqualTo("INSERT");
    assertThat(StatementParser.leadingWord("(SELECT 1)")).isEmpty();
    assertThat(StatementParser.leadingWord("/* unterminated")).isEmpty();
  }

  /** The index statements of SQLite, PostgreSQL and DuckDB scripts. */
  @Test
  void indexes() {
    assertThat(StatementParser.parse("CREATE INDEX i ON t (a)"))
        .isEqualTo(new Statement.CreateIndex("i", false, false, "t", List.of("a")));
    assertThat(
            StatementParser.parse(
                "create unique index if not exists \"Idx\" on T using btree (a desc nulls last, B)"))
        .isEqualTo(new Statement.CreateIndex("Idx", true, true, "t", List.of("a", "b")));
    assertThat(StatementParser.parse("DROP INDEX i"))
        .isEqualTo(new Statement.DropIndex("i", false));
    assertThat(StatementParser.parse("drop index if exists i"))
        .isEqualTo(new Statement.DropIndex("i", true));
  }

  @Test
  void malformedStatementsNameWhatWasExpectedAndWhere() {
    assertError("SET x", "expected = or TO after SET x, found the end of the statement", 1, 6);
    assertError("SET x =", "expected a value after SET x =", 1, 8);
    assertError("SET x = 'abc", "unterminated string literal", 1, 9);
    assertError(
        "CREATE SEQUENCE s",
        "expected TABLE, VIEW, EXTERNAL TABLE or [UNIQUE] INDEX after CREATE",
        1,
        8);
    assertError("CREATE INDEX i t (a)", "expected ON after CREATE INDEX i", 1, 16);
    assertError("CREATE UNIQUE INDEX i ON t (a + 1)", "expected ')' after the column list", 1, 31);
    assertError("CREATE UNIQUE i ON t (a)", "expected INDEX after CREATE UNIQUE", 1, 15);
    assertError(
        "CREATE TABLE t", "expected AS query or (column definitions) after CREATE TABLE t", 1, 15);
    assertError("CREATE TABLE t (a INT", "this ( has no closing )", 1, 16);
    assertError("CREATE TABLE t (a INT) x", "expected the end of the statement", 1, 24);
    assertError("CREATE VIEW v (a, ) AS SELECT 1, 2", "expected a column name", 1, 19);
    assertError("CREATE VIEW v SELECT 1", "expected AS before the query of CREATE VIEW v", 1, 15);
    assertError("CREATE VIEW v AS", "expected a query after CREATE VIEW v AS", 1, 17);
    assertError(
        "CREATE EXTERNAL TABLE x\n  STORED AS CSV\n  LOCATON 'f'",
        "expected LOCATION 'path' after STORED AS CSV, found 'LOCATON'",
        3,
        3);
    assertError(
        "CREATE EXTERNAL TABLE x (a) STORED AS CSV LOCATION 'f'",
        "expected a type for column a",
        1,
        27);
    assertError(
        "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION f",
        "expected a quoted path after LOCATION",
        1,
        48);
    assertError(
        "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION 'f' OPTIONS ('delimiter' 5)",
        "expected a quoted value for option delimiter, found a number",
        1,
        73);
    assertError(
        "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION 'f' OPTIONS ('a' 'b' 'c' 'd')",
        "expected ')' after the OPTIONS list",
        1,
        69);
    assertError("DROP SEQUENCE s", "expected TABLE, VIEW or INDEX after DROP", 1, 6);
    assertError("DROP INDEX i j", "expected the end of the statement after DROP INDEX i", 1, 14);
    assertError("DROP TABLE", "expected a name after DROP TABLE", 1, 11);
    assertError("DROP TABLE a b", "expected the end of the statement after DROP TABLE a", 1, 14);
    assertError("DROP TABLE \"\"", "expected a name after DROP TABLE", 1, 12);
    assertError("SHOW 42", "expected TABLES, COLUMNS, ALL or a setting name after SHOW", 1, 6);
    assertError("SHOW search_path x", "expected the end of the statement after SHOW", 1, 18);
    assertError("SHOW COLUMNS t", "expected FROM or IN after SHOW COLUMNS", 1, 14);
    assertError("DESCRIBE", "expected a table name after DESCRIBE", 1, 9);
    assertError("EXPLAIN ANALYZE", "expected a query after EXPLAIN ANALYZE", 1, 16);
    assertError("COPY (SELECT 1 TO 'x.csv'", "this ( has no closing )", 1, 6);
    assertError("COPY () TO 'x.csv'", "expected a query in COPY (...)", 1, 7);
    assertError("COPY t 'x.csv'", "expected TO 'path' after COPY t", 1, 8);
    assertError("COPY (SELECT 1) TO x.csv", "expected a quoted path after COPY ... TO", 1, 20);
    assertError(
        "COPY (SELECT 1) TO 'x.csv' WITH FORMAT CSV", "expected '(' for the options", 1, 33);
    assertError("COPY (SELECT 1) TO 'x' (FORMAT CSV", "expected ')' after COPY's options", 1, 35);
    assertError(
        "COPY (DROP TABLE t) TO 'x.csv'",
        "COPY (...) takes a query, EXPLAIN, DESCRIBE or SHOW TABLES, not DROP",
        1,
        7);
    assertError("DROP TABLE t /* open", "unterminated comment", 1, 14);
  }

  @Test
  void errorsOfSetAndOptionsNeverShowAValue() {
    // Without its =, the secret is the token found where = or TO was expected.
    assertError(
        "SET quiver.s3.secret_access_key 'hunter2'",
        "expected = or TO after SET quiver.s3.secret_access_key, found a string literal",
        1,
        33);
    assertError("SET quiver.s3.secret_access_key hunter2", "found a word", 1, 33);
    assertError(
        "ALTER SESSION SET quiver.s3.secret_access_key 'hunter2'",
        "expected = or TO after SET quiver.s3.secret_access_key, found a string literal",
        1,
        47);
    assertError("SET quiver.s3.secret_access_key\n  \"hunter2\"", "found a quoted name", 2, 3);
    assertError("SET quiver.s3.secret_access_key 12345", "found a number", 1, 33);
    assertError(
        "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION 'f' OPTIONS ('secret_access_key' hunter2)",
        "expected a quoted value for option secret_access_key, found a word",
        1,
        81);
    assertError(
        "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION 'f'\n" + "OPTIONS ('a' 'b' 'hunter2' 'c')",
        "expected ')' after the OPTIONS list, found a string literal",
        2,
        18);
    for (String sql :
        List.of(
            "SET quiver.s3.secret_access_key 'hunter2'",
            "SET quiver.s3.secret_access_key hunter2",
            "SET quiver.s3.secret_access_key\n  \"hunter2\"",
            "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION 'f' OPTIONS ('k' hunter2)",
            "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION 'f' OPTIONS ('a' 'b' 'hunter2')")) {
      assertThatThrownBy(() -> parse(sql))
          .as(sql)
          .isInstanceOf(SqlParseException.class)
          .message()
          .doesNotContain("hunter2");
    }
    assertThat(parse("SET quiver.s3.secret_access_key = 'hunter2'").toString())
        .contains("quiver.s3.secret_access_key")
        .doesNotContain("hunter2");
  }

  @Test
  void alterSessionSetIsSet() {
    assertThat(parse("alter session set quiver.execution.batch_size = 100"))
        .isEqualTo(new Statement.SetOption("quiver.execution.batch_size", "100"));
    assertThat(parse("ALTER SYSTEM SET a.b TO 'x'")).isEqualTo(new Statement.SetOption("a.b", "x"));
    assertThat(parse("ALTER SESSION RESET a.b"))
        .isEqualTo(new Statement.Other(new SqlText("ALTER SESSION RESET a.b", 1, 1)));
    assertThat(parse("ALTER TABLE t ADD c INT"))
        .isEqualTo(new Statement.Other(new SqlText("ALTER TABLE t ADD c INT", 1, 1)));
  }

  @Test
  void textWithNoStatementIsAnError() {
    assertError("", "no statement to run: the text is empty or holds only comments", 1, 1);
    assertError("  \n\t ", "no statement to run", 1, 1);
    assertError("-- only a comment", "no statement to run", 1, 1);
    assertError("/* a */ -- b\n ;; ", "no statement to run", 1, 1);
  }

  @Test
  void copyTakesNoStatementThatChangesData() {
    for (String word : List.of("INSERT INTO t VALUES (1)", "UPDATE t SET a = 1", "DELETE FROM t")) {
      String sql = "COPY (\n  /* c */ " + word + ") TO 'x.csv'";
      String kind = word.substring(0, word.indexOf(' '));
      assertError(
          sql,
          "COPY (...) takes a query, EXPLAIN, DESCRIBE or SHOW TABLES, not "
              + kind
              + ": it would run "
              + kind
              + " and copy no rows",
          2,
          11);
    }
    assertError("copy (merge into t using s on true) to 'x.csv'", "not MERGE", 1, 7);
    assertError("COPY (COPY t TO 'y.csv') TO 'x.csv'", "not COPY", 1, 7);
  }

  private static void assertError(String sql, String message, int line, int column) {
    assertThatThrownBy(() -> parse(sql))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            e -> {
              assertThat(e.getMessage()).contains(message);
              assertThat(e.line()).as("line of %s", sql).isEqualTo(line);
              assertThat(e.column()).as("column of %s", sql).isEqualTo(column);
            });
  }
}
