package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.benchmarks.engine.DuckDbEngine;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.DistributedModule;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.security.SecurityConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL reaches only the local files a server or executor was allowed ({@code --allowed-paths}, by
 * default the data folders it was started with): {@code read_csv('/etc/passwd')}, a symbolic link
 * out of an allowed folder, {@code COPY} to a folder outside, the server's token file and an
 * executor's work directory are refused with a typed error naming the path and the setting, while
 * the allowed data reads as DuckDB reads it. The library (this test's own process) keeps full
 * access.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AllowedPathsTest {
  private static final String TOKEN = "allowed-paths-test-token";

  @TempDir Path tmp;

  /** A folder of two CSV files (x = 1..100 and 101..200) and the expected count and sum. */
  private Path dataFolder() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("allowed").resolve("data"));
    StringBuilder a = new StringBuilder("x,name\n");
    StringBuilder b = new StringBuilder("x,name\n");
    for (int i = 1; i <= 200; i++) {
      (i <= 100 ? a : b).append(i).append(",n").append(i % 7).append('\n');
    }
    Files.writeString(data.resolve("a.csv"), a);
    Files.writeString(data.resolve("b.csv"), b);
    return data;
  }

  /** DuckDB's first row of {@code sql}. */
  static List<Object> duckdb(String sql) throws SQLException {
    DuckDbEngine engine = new DuckDbEngine(1);
    try (Statement s = engine.connection().createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return JdbcRows.read(rs).rows().get(0);
    } finally {
      engine.close();
    }
  }

  /** The first row of {@code sql} over {@code c}. */
  static List<Object> first(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return JdbcRows.read(rs).rows().get(0);
    }
  }

  private static void assertRefused(Connection c, String sql, String path) {
    Throwable e = catchThrowable(() -> first(c, sql));
    assertThat(e).as(sql).isInstanceOf(SQLException.class);
    StringBuilder messages = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    assertThat(messages.toString())
        .as(sql)
        .contains(path)
        .contains("allowed paths (--allowed-paths)")
        .doesNotContain("\tat ");
  }

  @Test
  void serveWithAnEmbeddedClusterReadsOnlyItsDataFolders() throws Exception {
    Path data = dataFolder();
    Path allowed = data.getParent();
    // The token file lies under the allowed folder, and is still refused.
    Path tokenFile = Files.writeString(allowed.resolve("token.txt"), TOKEN);
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("secret.csv"), "x\n42\n");
    Files.createSymbolicLink(allowed.resolve("link"), outside);
    String count = "SELECT count(*) AS n, CAST(sum(x) AS BIGINT) AS s FROM read_csv('%s')";
    try (ServeProcess server =
            ServeProcess.start(
                null,
                "--embedded",
                "2",
                "--token-file",
                tokenFile.toString(),
                "--csv",
                "t=" + data,
                "--allowed-paths",
                allowed.toString());
        Connection c = connect(server)) {
      List<Object> expected = duckdb(String.format(count, data.resolve("*.csv")));
      assertThat(first(c, "SELECT count(*) AS n, CAST(sum(x) AS BIGINT) AS s FROM t"))
          .isEqualTo(expected);
      assertThat(first(c, String.format(count, data.resolve("a.csv"))))
          .isEqualTo(duckdb(String.format(count, data.resolve("a.csv"))));
      assertRefused(c, "SELECT * FROM read_csv('/etc/passwd')", "/etc/passwd");
      assertRefused(
          c,
          String.format(count, outside.resolve("secret.csv")),
          outside.resolve("secret.csv").toString());
      assertRefused(
          c,
          String.format(count, allowed.resolve("link/secret.csv")),
          allowed.resolve("link").toString());
      assertRefused(c, "SELECT * FROM read_csv('" + tokenFile + "')", tokenFile.toString());
      Path copied = outside.resolve("copy");
      Throwable e =
          catchThrowable(
              () -> {
                try (Statement s = c.createStatement()) {
                  s.execute("COPY (SELECT 1 AS x) TO '" + copied + "' (FORMAT csv)");
                }
              });
      assertThat(e).isInstanceOf(SQLException.class);
      assertThat(copied).doesNotExist();
      // The server still answers.
      assertThat(first(c, "SELECT count(*) AS n, CAST(sum(x) AS BIGINT) AS s FROM t"))
          .isEqualTo(expected);
    }
  }

  /**
   * A client of {@code quiver serve} running queries in the server cannot point the spill directory
   * (the one setting naming a local path) outside the allowed paths: its SET is refused with the
   * typed error naming the setting, and the session's queries still answer right, writing nothing
   * there. Under an allowed folder the setting is taken.
   */
  @Test
  void aClientCannotSpillOutsideTheAllowedPaths() throws Exception {
    Path data = dataFolder();
    Path allowed = data.getParent();
    Path tokenFile = Files.writeString(tmp.resolve("token.txt"), TOKEN);
    Path outside = Files.createDirectories(tmp.resolve("spill-outside"));
    String sorted =
        "SELECT count(*) AS n, CAST(sum(x) AS BIGINT) AS s FROM (SELECT x, name FROM read_csv('%s')"
            + " ORDER BY name, x)";
    String quiverSql = String.format(sorted, data);
    List<Object> expected = duckdb(String.format(sorted, data.resolve("*.csv")));
    try (ServeProcess server =
            ServeProcess.start(
                null, "--token-file", tokenFile.toString(), "--allowed-paths", allowed.toString());
        Connection c = connect(server);
        Statement s = c.createStatement()) {
      Throwable e =
          catchThrowable(
              () -> s.execute("SET quiver.execution.spill_directory = '" + outside + "'"));
      assertThat(e).isInstanceOf(SQLException.class);
      StringBuilder messages = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        messages.append(t.getMessage()).append('\n');
      }
      assertThat(messages.toString())
          .contains("quiver.execution.spill_directory")
          .contains("--allowed-paths")
          .contains(outside.toString())
          .doesNotContain("\tat ");
      // The session goes on, its setting unchanged.
      assertThat(first(c, quiverSql)).isEqualTo(expected);
      try (var files = Files.list(outside)) {
        assertThat(files).isEmpty();
      }
      Path spill = Files.createDirectories(allowed.resolve("spill"));
      s.execute("SET quiver.execution.spill_directory = '" + spill + "'");
      assertThat(first(c, quiverSql)).isEqualTo(expected);
    }
  }

  private static Connection connect(ServeProcess server) throws SQLException {
    Properties p = new Properties();
    p.setProperty("token", TOKEN);
    return DriverManager.getConnection(server.jdbcUrl(), p);
  }

  @Test
  void executorJarsReadOnlyTheirAllowedPaths() throws Exception {
    Path data = dataFolder();
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("secret.csv"), "x\n42\n");
    Path clusterDir = Files.createDirectories(tmp.resolve("cluster"));
    // The executors may read the test folder, which holds their own work directories: those
    // stay refused.
    try (ProcessCluster cluster =
        ProcessCluster.start(
            clusterDir,
            2,
            new ProcessCluster.Options(
                1,
                null,
                List.of(),
                List.of("--allowed-paths", data + "," + clusterDir),
                SecurityConfig.none()))) {
      Path workFile = cluster.workDir("exec-0").resolve("planted.csv");
      Files.writeString(workFile, "x\n7\n");
      Injector injector =
          Guice.createInjector(
              new DistributedModule(
                  ClusterConfig.remote(cluster.target()),
                  new SessionConfig().set(DistributedSettings.BYTES_PER_TASK, "1k")));
      injector.getInstance(ClusterLifecycle.class).start();
      try (SessionContext ctx = injector.getInstance(SessionContext.class)) {
        String allowed = "SELECT count(*) AS n, CAST(sum(x) AS BIGINT) AS s FROM read_csv('%s')";
        assertThat(ctx.sql(String.format(allowed, data)).rows().get(0).values())
            .isEqualTo(duckdb(String.format(allowed, data.resolve("*.csv"))));
        for (Path refused : List.of(outside.resolve("secret.csv"), workFile)) {
          // The client (this process, a library) plans the scan; the executors refuse to read.
          Throwable e =
              catchThrowable(
                  () -> ctx.sql("SELECT sum(x) FROM read_csv('" + refused + "')").rows());
          assertThat(e).as(refused.toString()).isInstanceOf(ObjectStoreException.class);
          assertThat(((ObjectStoreException) e).reason())
              .isEqualTo(ObjectStoreException.Reason.NOT_ALLOWED);
          assertThat(e.getMessage()).contains(refused.toString()).contains("--allowed-paths");
        }
      } finally {
        injector.getInstance(ClusterLifecycle.class).close();
      }
    }
  }
}
