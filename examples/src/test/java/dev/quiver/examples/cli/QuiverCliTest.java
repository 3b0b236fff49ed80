package dev.quiver.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuiverCliTest {
  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = QuiverCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void conflictingOptionsAreAOneLineUsageError() {
    int exit = run("sql", "--format", "csv", "-e", "select 1", "-f", "script.sql");
    assertThat(exit).isEqualTo(QuiverCli.EXIT_USAGE);
    assertThat(err.toString().strip())
        .doesNotContain("\n")
        .contains("-e or -f")
        .contains("quiver sql --help");
  }

  @Test
  void aMisspeltOptionGetsADidYouMean() {
    int exit = run("sql", "--schedular", "localhost:50050", "-e", "select 1");
    assertThat(exit).isEqualTo(QuiverCli.EXIT_USAGE);
    assertThat(err.toString().strip())
        .doesNotContain("\n")
        .contains("--schedular")
        .contains("did you mean --scheduler");
  }

  @Test
  void badFormatIsAUsageError() {
    int exit = run("sql", "--format", "xml", "-e", "select 1");
    assertThat(exit).isEqualTo(QuiverCli.EXIT_USAGE);
    assertThat(err.toString().strip()).doesNotContain("\n").contains("xml");
  }

  @Test
  void errorsAreReducedToTheirFirstLine() {
    assertThat(QuiverCli.oneLine(new IllegalStateException("first\nsecond")))
        .isEqualTo("IllegalStateException: first");
    assertThat(QuiverCli.oneLine(new RuntimeException(new IllegalArgumentException("inner"))))
        .contains("inner");
    assertThat(
            QuiverCli.oneLine(new dev.quiver.binding.errors.QuiverException("Table t not found")))
        .isEqualTo("Table t not found");
  }

  @Test
  void csvOptionsGiveTheLayoutOfACsvTable() throws Exception {
    Path f = dir.resolve("sales.csv.gz");
    try (var gz = new java.util.zip.GZIPOutputStream(java.nio.file.Files.newOutputStream(f))) {
      gz.write(
          "1;'a;b';NA\n2;'it''s';7\n3;x;oops\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    int exit =
        run(
            "sql",
            "--format",
            "csv",
            "--csv",
            "sales=" + f,
            "--csv-option",
            "sales.delimiter=;",
            "--csv-option",
            "sales.header=false",
            "--csv-option",
            "sales.quote='",
            "--csv-option",
            "sales.null=NA",
            "--csv-option",
            "sales.types=column_3:BIGINT",
            "--csv-option",
            "sales.ignore_errors=true",
            "-e",
            "SELECT column_1, column_2, column_3 FROM sales ORDER BY column_1");
    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString().strip().split("\\R"))
        .containsExactly("column_1,column_2,column_3", "1,a;b,", "2,it's,7", "3,x,");

    int bad = run("sql", "--csv-option", "nope.header=false", "-e", "SELECT 1");
    assertThat(bad).isEqualTo(QuiverCli.EXIT_USAGE);
    assertThat(err.toString()).contains("--csv-option nope.header=false");
  }

  @Test
  void aParseErrorInAScriptIsPlacedInTheScript() throws Exception {
    Path script = dir.resolve("bad.sql");
    java.nio.file.Files.writeString(
        script, "SELECT 1 AS a;\n\nSELECT a\n  FROM (VALUES (1)) v(a) GROUP BY;\n");
    int exit = run("sql", "--format", "csv", "-f", script.toString());
    assertThat(exit).isEqualTo(QuiverCli.EXIT_FAILURE);
    assertThat(err.toString())
        .contains("error in statement 2 of 2")
        .contains("the statement ends after 'GROUP BY'")
        .contains("(at line 4, column 34)");
  }

  @Test
  void scriptsAndStandardInputRunEveryStatementInOrder() throws Exception {
    Path csv = dir.resolve("t.csv");
    java.nio.file.Files.writeString(csv, "id,name\n1,a;b\n2,c\n");
    Path script = dir.resolve("script.sql");
    java.nio.file.Files.writeString(
        script,
        "-- a comment; with a semicolon\n"
            + "CREATE TABLE x AS SELECT id, name FROM t;\n"
            + "INSERT INTO x VALUES (3, 'd;e');\n"
            + "SET target_partitions = 2;\n"
            + "SELECT id, name FROM x ORDER BY id;\n");
    int exit =
        run("sql", "--csv", "t=" + csv, "--format", "csv", "--timing", "-f", script.toString());
    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString().split("\\R"))
        .containsSubsequence("count", "2", "count", "1", "id,name", "1,a;b", "2,c", "3,d;e");
    assertThat(err.toString()).contains("Time: ");

    java.io.InputStream stdin = System.in;
    try {
      System.setIn(
          new java.io.ByteArrayInputStream(
              "SELECT count(*) AS n FROM t; SELECT max(id) AS m FROM t"
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      out.getBuffer().setLength(0);
      assertThat(run("sql", "--csv", "t=" + csv, "--format", "jsonl")).isZero();
      assertThat(out.toString().split("\\R")).containsExactly("{\"n\":2}", "{\"m\":2}");
    } finally {
      System.setIn(stdin);
    }
  }

  @Test
  void jsonOfSeveralStatementsIsOneDocument() throws Exception {
    int exit =
        run(
            "sql",
            "--format",
            "json",
            "-e",
            "SELECT 1 AS a; SELECT 2 AS b UNION ALL SELECT 3;"
                + " SELECT x AS c FROM (VALUES (4)) AS t(x) WHERE x = 0");
    assertThat(exit).as(err::toString).isZero();
    com.fasterxml.jackson.databind.JsonNode doc =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString());
    assertThat(doc.isArray()).isTrue();
    assertThat(doc.size()).isEqualTo(3);
    assertThat(doc.get(0).get(0).get("a").asInt()).isEqualTo(1);
    assertThat(doc.get(1).size()).isEqualTo(2);
    assertThat(doc.get(2).size()).isZero();

    out.getBuffer().setLength(0);
    assertThat(run("sql", "--format", "json", "-e", "SELECT 1 AS a")).isZero();
    com.fasterxml.jackson.databind.JsonNode single =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString());
    assertThat(single.get(0).get("a").asInt()).isEqualTo(1);
  }

  @Test
  void aFailingStatementStopsTheScriptWithItsNumber() throws Exception {
    int exit = run("sql", "-e", "SELECT 1 AS a; SELECT nope FROM nowhere; SELECT 3 AS c");
    assertThat(exit).isEqualTo(QuiverCli.EXIT_FAILURE);
    assertThat(out.toString()).contains("| 1 |").doesNotContain("| 3 |");
    assertThat(err.toString()).contains("statement 2 of 3").contains("nowhere");
  }
}
