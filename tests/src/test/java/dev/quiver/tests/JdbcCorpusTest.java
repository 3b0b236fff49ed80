package dev.quiver.tests;

import java.nio.file.Path;
import java.util.Properties;

/**
 * The SQL corpus through the Arrow Flight SQL JDBC driver against {@code quiver serve --embedded 2}
 * (64 KiB of input per task, so plans run as several stages and tasks), checked against DuckDB.
 */
class JdbcCorpusTest extends CorpusTestBase {
  @Override
  RowEngine openActual(Path dir) {
    ServeProcess server = null;
    try {
      server =
          ServeProcess.start(
              dir, "--embedded", "2", "--set", "quiver.distributed.bytes_per_task=64KB");
      return new JdbcRows(server.jdbcUrl(), new Properties(), server);
    } catch (Exception e) {
      if (server != null) {
        server.close();
      }
      throw new IllegalStateException("starting quiver serve failed", e);
    }
  }
}
