package dev.quiver.benchmarks.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.examples.cli.QuiverCli;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --queries DIR --data DIR}: a folder of .sql files timed over tables that are folders
 * of Parquet or CSV files, on Quiver and DuckDB in this process.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QueryFolderBenchTest {
  @TempDir Path dir;

  private final BenchCli cli = new BenchCli();
  private final StringWriter out = cli.out;
  private final StringWriter err = cli.err;

  private int run(String... args) {
    return cli.run(args);
  }

  /** Tables: events (a folder of two Parquet files), users.csv and a folder of one CSV file. */
  private Path data() throws IOException, SQLException {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.createDirectories(data.resolve("events"));
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      for (int part = 0; part < 2; part++) {
        s.execute(
            "COPY (SELECT i AS id, i % 7 AS user_id, i * 1.5 AS amount FROM range("
                + (part * 500)
                + ", "
                + (part * 500 + 500)
                + ") t(i)) TO '"
                + data.resolve("events/part-" + part + ".parquet")
                + "' (FORMAT PARQUET)");
      }
    }
    StringBuilder users = new StringBuilder("user_id,name\n");
    for (int u = 0; u < 7; u++) {
      users.append(u).append(",user").append(u).append('\n');
    }
    Files.writeString(data.resolve("users.csv"), users);
    Files.createDirectories(data.resolve("regions"));
    Files.writeString(data.resolve("regions/r.csv"), "region,code\nnorth,1\nsouth,2\n");
    return data;
  }

  private Path queries(String... nameAndSql) throws IOException {
    Path queries = Files.createDirectories(dir.resolve("queries"));
    for (int i = 0; i < nameAndSql.length; i += 2) {
      Files.writeString(queries.resolve(nameAndSql[i]), nameAndSql[i + 1]);
    }
    return queries;
  }

  @Test
  void timesEverySqlFileOnEveryEngineOverParquetAndCsvTables() throws Exception {
    Path data = data();
    Path queries =
        queries(
            "b_join.sql",
            "SELECT u.name, SUM(e.amount) AS total FROM events e JOIN users u"
                + " ON e.user_id = u.user_id GROUP BY u.name;\n",
            "a_count.sql",
            "SELECT COUNT(*) AS n FROM events",
            "c_regions.sql",
            "SELECT * FROM regions WHERE code > 1",
            "notes.txt",
            "not a query");
    int exit =
        run(
            "bench",
            "--queries",
            queries.toString(),
            "--data",
            data.toString(),
            "--engines",
            "quiver,duckdb",
            "--runs",
            "1",
            "--warmup-passes",
            "0",
            "--threads",
            "2");
    assertThat(exit).as("stdout:%n%s%nstderr:%n%s", out, err).isZero();
    List<String> lines = out.toString().lines().toList();
    assertThat(lines.get(0)).matches("query\\s+quiver ms\\s+duckdb ms\\s+quiver/duckdb");
    // One line per file, in file-name order, with two times and a ratio.
    String number = "\\s+[0-9]+\\.[0-9]";
    assertThat(lines.get(1)).matches("a_count" + number + number + "\\s+[0-9]+\\.[0-9]{2}");
    assertThat(lines.get(2)).matches("b_join " + number + number + "\\s+[0-9]+\\.[0-9]{2}");
    assertThat(lines.get(3)).matches("c_regions" + number + number + "\\s+[0-9]+\\.[0-9]{2}");
    assertThat(lines.get(4)).matches("total" + "\\s+[0-9]+\\.[0-9]" + number);
    assertThat(lines).anyMatch(l -> l.matches("total ratio quiver/duckdb: [0-9]+\\.[0-9]{2}"));
    assertThat(out.toString()).doesNotContain("failed").doesNotContain("rows differ");
    // Nothing was generated: the data folder holds only what the test wrote.
    assertThat(data.toFile().list()).containsExactlyInAnyOrder("events", "users.csv", "regions");
  }

  @Test
  void aQueryFailingOnOneEngineIsReportedAndTheOthersStillRun() throws Exception {
    Path data = data();
    Path queries =
        queries(
            "good.sql", "SELECT COUNT(*) FROM events",
            "bad.sql", "SELECT no_such_column FROM events");
    int exit =
        run(
            "bench",
            "--queries",
            queries.toString(),
            "--data",
            data.toString(),
            "--engines",
            "quiver,duckdb",
            "--runs",
            "1",
            "--warmup-passes",
            "0");
    assertThat(exit).isEqualTo(QuiverCli.EXIT_FAILURE);
    assertThat(out.toString())
        .contains("failed: quiver bad: ")
        .contains("failed: duckdb bad: ")
        .containsPattern("good\\s+[0-9]");
  }

  @Test
  void optionMistakesAreOneLineUsageErrors() throws Exception {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    assertThat(run("bench", "--queries", empty.toString())).isEqualTo(QuiverCli.EXIT_USAGE);
    assertThat(err.toString()).contains("needs --data DIR");

    err.getBuffer().setLength(0);
    assertThat(run("bench", "--queries", empty.toString(), "--data", data().toString()))
        .isEqualTo(QuiverCli.EXIT_USAGE);
    assertThat(err.toString()).contains("Query folder " + empty + " holds no .sql file");

    err.getBuffer().setLength(0);
    assertThat(run("bench", "--queries", dir.resolve("nope").toString(), "--data", "x"))
        .isEqualTo(QuiverCli.EXIT_USAGE);
    assertThat(err.toString().strip())
        .doesNotContain("\n")
        .contains("--queries takes TPC-H query numbers (1,3,5) or a folder of .sql files");

    err.getBuffer().setLength(0);
    Path queries = queries("q.sql", "SELECT 1");
    assertThat(run("bench", "--queries", queries.toString(), "--data", empty.toString()))
        .isEqualTo(QuiverCli.EXIT_USAGE);
    assertThat(err.toString()).contains("Data folder " + empty + " holds no table");
  }

  @Test
  void aTableFolderHasOneFormat() throws Exception {
    Path data = data();
    Files.writeString(data.resolve("events/extra.csv"), "id\n1\n");
    assertThatThrownBy(() -> QueryFolder.load(queries("q.sql", "SELECT 1"), data))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mixes .parquet and .csv files");
  }

  @Test
  void trailingSemicolonsAreDropped() {
    assertThat(QueryFolder.withoutTrailingSemicolons("  SELECT 1 ;; \n")).isEqualTo("SELECT 1");
  }
}
