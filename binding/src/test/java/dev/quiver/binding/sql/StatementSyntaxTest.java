package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.SqlParseException;
import dev.quiver.binding.settings.SessionConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quiver's own statements (SET, CREATE [EXTERNAL] TABLE, CREATE VIEW, DROP, COPY) with quotes,
 * comments and parentheses where the regular expressions that used to read them went wrong, run end
 * to end; and their syntax errors, typed and placed in the user's text.
 */
@Timeout(120)
class StatementSyntaxTest {
  @TempDir Path dir;
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(3).withBatchSize(2));
    ctx.sql("CREATE TABLE t(id INTEGER, name VARCHAR, price DECIMAL(10, 2))");
    ctx.sql("INSERT INTO t VALUES (1, 'a', 1.50), (2, 'b)', 2.25), (3, NULL, 3.00)");
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
  void copyWithParenthesesInItsQueryAndOptionsAndATrailingComment() throws IOException {
    assertThat(
            rows(
                "COPY (SELECT id, name /* not ) TO 'x' */ FROM t WHERE name <> ')' ORDER BY id)"
                    + " TO '"
                    + path("o.csv")
                    + "' (FORMAT CSV, DELIMITER '|', HEADER false) -- write the rows"))
        .containsExactly("2");
    assertThat(Files.readString(dir.resolve("o.csv"), StandardCharsets.UTF_8))
        .isEqualTo("1|a\n2|b)\n");
  }

  @Test
  void externalTableColumnsAndOptionsWithQuotesParenthesesAndComments() throws IOException {
    Files.writeString(dir.resolve("p.csv"), "id;price)\n1;1.50\n2;2.25\n");
    ctx.sql(
        "CREATE EXTERNAL TABLE \"my prices\" (\"price)\" DECIMAL(10, 2) NOT NULL)\n"
            + "STORED AS CSV LOCATION '"
            + path("p.csv")
            + "'\nOPTIONS ('delimiter' ';', /* the first line names the columns */ header 'true')");
    assertThat(rows("SELECT id, \"price)\" FROM \"my prices\" ORDER BY id"))
        .containsExactly("1|1.50", "2|2.25");
    assertThat(rows("DESCRIBE \"my prices\"").get(1)).startsWith("price)|DECIMAL(10,2)|");
  }

  @Test
  void viewColumnNamesMayHoldParenthesesAndSpaces() {
    ctx.sql("CREATE VIEW v (\"total (usd)\", n) AS SELECT SUM(price), COUNT(*) FROM t");
    assertThat(rows("SELECT \"total (usd)\", n FROM v")).containsExactly("6.75|3");
  }

  @Test
  void tableNamesWithSpacesAndTypesWithParentheses() {
    assertThat(rows("CREATE TABLE \"my table\" AS SELECT id, price FROM t WHERE id > 1"))
        .containsExactly("2");
    assertThat(rows("SELECT SUM(price) FROM \"my table\"")).containsExactly("5.25");
    ctx.sql("CREATE TABLE d (a DECIMAL(10, 2) NOT NULL, b VARCHAR DEFAULT 'x, (y)')");
    ctx.sql("INSERT INTO d (a) VALUES (1.5)");
    assertThat(rows("SELECT a, b FROM d")).containsExactly("1.50|x, (y)");
    ctx.sql("DROP TABLE \"my table\" -- gone");
    assertThat(rows("SHOW TABLES")).containsExactlyInAnyOrder("t", "d");
  }

  @Test
  void setTakesQuotedValuesWithSpacesAndIgnoresComments() {
    ctx.sql("SET quiver.execution.spill_directory TO '/tmp/a b' -- where spills go");
    assertThat(ctx.config().get(SessionConfig.SPILL_DIRECTORY)).isEqualTo("/tmp/a b");
    ctx.sql("SET quiver.s3.region = 'it''s'");
    assertThat(ctx.config().get(SessionConfig.S3_REGION)).isEqualTo("it's");
  }

  @Test
  void aStatementEndingInASemicolonAndACommentRunsAsWithout() {
    ctx.sql("SET quiver.execution.spill_directory = '/tmp/q'; -- where spills go");
    assertThat(ctx.config().get(SessionConfig.SPILL_DIRECTORY)).isEqualTo("/tmp/q");
    assertThat(rows("CREATE TABLE u AS SELECT id FROM t; -- a copy")).containsExactly("3");
    assertThat(rows("SELECT COUNT(*) FROM u;; /* all of it */")).containsExactly("3");
    ctx.sql("CREATE VIEW w AS SELECT id FROM u WHERE id > 1; -- the later ones");
    assertThat(rows("EXPLAIN SELECT * FROM w; -- a plan")).hasSize(2);
    assertThat(rows("SELECT COUNT(*) FROM w")).containsExactly("2");
  }

  @Test
  void malformedStatementsAreParseErrorsWithTheirPosition() {
    assertThatThrownBy(() -> ctx.sql("CREATE EXTERNAL TABLE x\nSTORED AS CSV"))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            e -> {
              assertThat(e.getMessage())
                  .contains("expected LOCATION 'path' after STORED AS CSV")
                  .contains("line 2, column 14");
            });
    assertThatThrownBy(() -> ctx.sql("COPY (SELECT 1) TO '" + path("x.csv") + "' (FORMAT CSV"))
        .isInstanceOf(SqlParseException.class)
        .hasMessageContaining("expected ')' after COPY's options");
    // Calcite's errors in an embedded query point into the statement the user typed.
    assertThatThrownBy(() -> ctx.sql("COPY (SELECT id FROM t WHERE) TO '" + path("x.csv") + "'"))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            e -> {
              assertThat(e.column()).isEqualTo(24); // WHERE
              assertThat(e.getMessage()).contains("ends after 't WHERE'");
            });
    assertThatThrownBy(() -> ctx.sql("CREATE VIEW w AS\n  SELECT id FROM t WHERE"))
        .isInstanceOfSatisfying(SqlParseException.class, e -> assertThat(e.line()).isEqualTo(2));
  }
}
