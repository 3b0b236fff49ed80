package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 37 item 6: tables created through {@code --catalog} outlive the process that created them.
 * {@code quiver serve} (in process and with an embedded cluster, whose executors write the files)
 * creates and fills an Iceberg table over JDBC, is stopped and started again on the same catalog,
 * and answers from the table; {@code quiver sql} does the same across two runs of the command.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class IcebergTablesPersistTest {
  @TempDir Path warehouse;

  @Test
  void serveKeepsItsTablesAcrossRestarts() throws Exception {
    String catalog = "lake=iceberg:" + warehouse;
    try (ServeProcess serve = ServeProcess.start(null, "--catalog", catalog);
        Connection c = connect(serve);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE lake.db.events AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(id, tag)");
      s.execute("INSERT INTO lake.db.events VALUES (3, 'c')");
    }
    try (ServeProcess serve = ServeProcess.start(null, "--catalog", catalog, "--embedded", "2");
        Connection c = connect(serve);
        Statement s = c.createStatement()) {
      assertThat(rows(s, "SELECT id, tag FROM lake.db.events ORDER BY id"))
          .containsExactly("1|a", "2|b", "3|c");
      // The executors of the embedded cluster write this one.
      s.execute("INSERT INTO lake.db.events VALUES (4, 'd')");
      assertThat(rows(s, "SHOW TABLES FROM lake.db")).anyMatch(r -> r.contains("events"));
    }
    try (ServeProcess serve = ServeProcess.start(null, "--catalog", catalog);
        Connection c = connect(serve);
        Statement s = c.createStatement()) {
      assertThat(rows(s, "SELECT count(*), sum(id) FROM lake.db.events")).containsExactly("4|10");
    }
  }

  @Test
  void theSqlCommandKeepsItsTablesAcrossRuns() throws Exception {
    String catalog = "lake=iceberg:" + warehouse;
    sql(catalog, "CREATE TABLE lake.db.t AS SELECT * FROM (VALUES (10, 'x'), (20, 'y')) v(n, s)");
    sql(catalog, "INSERT INTO lake.db.t VALUES (30, 'z')");
    assertThat(sql(catalog, "SELECT sum(n) AS total, count(*) AS c FROM lake.db.t"))
        .contains("60")
        .contains("3");
  }

  private static Connection connect(ServeProcess serve) throws SQLException {
    return DriverManager.getConnection(serve.jdbcUrl(), new Properties());
  }

  private static List<String> rows(Statement s, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          row.append(i > 1 ? "|" : "").append(rs.getString(i));
        }
        out.add(row.toString());
      }
    }
    return out;
  }

  /** Runs {@code quiver sql --catalog CATALOG --format csv -e SQL} as a process; its output. */
  private static String sql(String catalog, String statement)
      throws IOException, InterruptedException {
    Path jar = ProcessCluster.jar("examples", "quiver.jar");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-jar",
                jar.toString(),
                "sql",
                "--catalog",
                catalog,
                "--format",
                "csv",
                "-e",
                statement)
            .redirectErrorStream(true)
            .start();
    try {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("quiver sql ended").isTrue();
      assertThat(p.exitValue()).as("quiver sql exit code; output:\n%s", out).isZero();
      return out;
    } finally {
      p.destroyForcibly();
    }
  }
}
