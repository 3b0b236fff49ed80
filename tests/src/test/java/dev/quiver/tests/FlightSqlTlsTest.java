package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.distributed.security.TestCertificates;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver serve --tls-cert C --tls-key K --token-file F} (queries in the server) through the
 * Arrow Flight SQL JDBC driver: TLS with the CA given to the driver and the token works; a
 * plaintext client, a client that does not trust the CA, and a client without the token are refused
 * with an SQLException and no stack trace.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FlightSqlTlsTest {
  private static final String TOKEN = "qv-flight-sql-tls-token-5b1e";

  @TempDir static Path tmp;
  private TestCertificates certs;
  private ServeProcess server;
  private RowEngine duckdb;

  @BeforeAll
  void start() throws Exception {
    certs = TestCertificates.generate(tmp.resolve("certs"));
    Path data = TpchFixture.data(CorpusTestBase.SCALE);
    server =
        ServeProcess.start(
            data,
            "--tls-cert",
            certs.cert().toString(),
            "--tls-key",
            certs.key().toString(),
            "--token-file",
            certs.tokenFile("token", TOKEN).toString());
    duckdb = Differential.reference(data);
  }

  @AfterAll
  void stop() {
    if (duckdb != null) {
      duckdb.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private String url(boolean encryption) {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + server.port() + "/?useEncryption=" + encryption;
  }

  private Properties trusting(String token) {
    Properties p = new Properties();
    p.setProperty("tlsRootCerts", certs.ca().toString());
    p.setProperty("useSystemTrustStore", "false");
    if (token != null) {
      p.setProperty("token", token);
    }
    return p;
  }

  @Test
  void tlsWithTheCaAndTheTokenReturnsDuckDbsRows() throws Exception {
    assertThat(server.log()).contains("useEncryption=true");
    String sql =
        "SELECT n_name, r_name FROM nation JOIN region ON n_regionkey = r_regionkey"
            + " WHERE n_name LIKE '%A%' ORDER BY n_name";
    try (Connection c = DriverManager.getConnection(url(true), trusting(TOKEN));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      QueryResult expected = duckdb.query(sql);
      Differential.check(
          "tls", sql, expected, JdbcRows.read(rs), Differential.sortOf(sql, expected));
    }
  }

  @Test
  void plaintextUntrustedAndTokenlessClientsAreRefused() {
    // Plaintext against a TLS server.
    Properties plain = new Properties();
    plain.setProperty("token", TOKEN);
    assertRefused(() -> DriverManager.getConnection(url(false), plain));
    // TLS without trusting the server's CA.
    Properties untrusted = new Properties();
    untrusted.setProperty("token", TOKEN);
    untrusted.setProperty("useSystemTrustStore", "false");
    assertRefused(() -> DriverManager.getConnection(url(true), untrusted));
    // TLS trusting the CA, but without the token.
    assertThatThrownBy(() -> query(DriverManager.getConnection(url(true), trusting(null))))
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(causes(e)).containsIgnoringCase("unauthenticated"));
  }

  /** Connecting (and, where connecting is lazy, querying) fails with an SQLException. */
  private static void assertRefused(ConnectionSupplier connect) {
    assertThatThrownBy(() -> query(connect.get()))
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(causes(e)).doesNotContain(TOKEN).doesNotContain("\tat "));
  }

  private static void query(Connection c) throws SQLException {
    try (c;
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM nation")) {
      rs.next();
    }
  }

  @FunctionalInterface
  private interface ConnectionSupplier {
    Connection get() throws SQLException;
  }

  private static String causes(Throwable e) {
    StringBuilder s = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      s.append(t.getMessage()).append('\n');
    }
    return s.toString();
  }
}
