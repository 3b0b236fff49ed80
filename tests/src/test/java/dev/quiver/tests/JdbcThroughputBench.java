package dev.quiver.tests;

import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How long a large result (all of lineitem: 6M rows at SF 1) takes in process on an embedded
 * cluster of 2 versus through {@code quiver serve --embedded 2} and the JDBC driver, with the
 * result read through the server and read from the executors (executor endpoints). Prints the times
 * and ratios of one run. Slow: {@code -Dexcluded.test.groups=none -Dtest=JdbcThroughputBench
 * -Dquiver.bench.sf=1}.
 */
@Tag("slow")
class JdbcThroughputBench {
  private static final String SCAN = "SELECT * FROM lineitem";

  @Test
  @Timeout(value = 60, unit = TimeUnit.MINUTES)
  void lineitemInProcessVersusJdbc() throws Exception {
    double sf = Double.parseDouble(System.getProperty("quiver.bench.sf", "1"));
    int runs = Integer.getInteger("quiver.bench.runs", 3);
    Path dir = TpchFixture.data(sf);
    double inProcess;
    ClusterFixture.ClusterRows cluster = ClusterFixture.embedded(2, dir, new SessionConfig());
    try {
      inProcess =
          best(
              runs,
              () -> {
                long rows = 0;
                try (ArrowReader r = cluster.rows().session().sql(SCAN).executeStream()) {
                  while (r.loadNextBatch()) {
                    rows += r.getVectorSchemaRoot().getRowCount();
                  }
                }
                return rows;
              });
    } finally {
      cluster.rows().close();
    }
    double through;
    double endpoints;
    try (ServeProcess server = ServeProcess.start(dir, "--embedded", "2");
        JdbcRows jdbc = new JdbcRows(server.jdbcUrl(), new Properties(), () -> {})) {
      Connection c = jdbc.connection();
      through = best(runs, () -> readAll(c));
      try (Statement s = c.createStatement()) {
        s.executeUpdate("SET quiver.flight_sql.executor_endpoints = true");
      }
      endpoints = best(runs, () -> readAll(c));
    }
    System.out.printf(
        Locale.ROOT,
        "lineitem SF %s, best of %d: in process (embedded 2) %.0f ms; JDBC through the server"
            + " %.0f ms (%.2fx); JDBC from executor endpoints %.0f ms (%.2fx);"
            + " endpoints/through-server %.2f%n",
        sf,
        runs,
        inProcess,
        through,
        through / inProcess,
        endpoints,
        endpoints / inProcess,
        endpoints / through);
  }

  /** Reads every row, as a client would: next() and the first column. */
  private static long readAll(Connection c) throws Exception {
    long rows = 0;
    long sum = 0;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(SCAN)) {
      while (rs.next()) {
        sum += rs.getLong(1);
        rows++;
      }
    }
    return sum == 0 ? -rows : rows;
  }

  @FunctionalInterface
  private interface Run {
    long rows() throws Exception;
  }

  /** The fastest of {@code runs} timed runs after one warm-up, in ms. */
  private static double best(int runs, Run run) throws Exception {
    long expected = run.rows();
    double best = Double.MAX_VALUE;
    for (int i = 0; i < runs; i++) {
      long start = System.nanoTime();
      long rows = run.rows();
      best = Math.min(best, (System.nanoTime() - start) / 1e6);
      if (rows != expected) {
        throw new AssertionError("rows differ between runs: " + rows + " vs " + expected);
      }
    }
    return best;
  }
}
