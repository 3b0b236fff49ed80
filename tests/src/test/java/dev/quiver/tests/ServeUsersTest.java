package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver serve --users-file}: a JDBC client's token names its user, whom its jobs carry into
 * the cluster (the jobs API's {@code user}) and whose resource group they run in; a wrong token is
 * told to set {@code token=}; a client naming another user than its token's is refused unless the
 * server was started with {@code --trust-client-user}, which takes the name the client sends. Every
 * answer is checked against DuckDB on the same files.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ServeUsersTest {
  private static final String GROUPS =
      """
      {"groups": [{"name": "etl", "maxRunning": 4}, {"name": "adhoc", "maxRunning": 4}],
       "selectors": [{"user": "etl-bot", "group": "etl"}, {"user": "*", "group": "adhoc"}]}
      """;

  @TempDir Path tmp;

  /** A folder of CSV files, x = 1..300. */
  private Path data() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("data"));
    for (int f = 0; f < 3; f++) {
      StringBuilder b = new StringBuilder("x,name\n");
      for (int i = f * 100 + 1; i <= f * 100 + 100; i++) {
        b.append(i).append(",n").append(i % 7).append('\n');
      }
      Files.writeString(dir.resolve("part" + f + ".csv"), b);
    }
    return dir;
  }

  /** Quiver's query over the folder; DuckDB reads the same files through a glob. */
  private static String sumOver(Path data, int above) {
    return "SELECT count(*) AS n, CAST(sum(x) AS BIGINT) AS s FROM read_csv('"
        + data
        + "') WHERE x > "
        + above;
  }

  private static List<Object> duckdb(String sql) throws SQLException {
    int from = sql.indexOf("read_csv('") + "read_csv('".length();
    int to = sql.indexOf("')", from);
    return AllowedPathsTest.duckdb(sql.substring(0, to) + "/*.csv" + sql.substring(to));
  }

  private static List<Object> first(Connection c, String sql) throws SQLException {
    return AllowedPathsTest.first(c, sql);
  }

  private static Connection connect(ServeProcess server, Properties p) throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl(), p);
  }

  private static Properties token(String token) {
    Properties p = new Properties();
    p.setProperty("token", token);
    return p;
  }

  private static Properties basic(String user, String token) {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", token);
    return p;
  }

  private static String messages(Throwable e) {
    StringBuilder m = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      m.append(t.getMessage()).append('\n');
    }
    return m.toString();
  }

  /** The jobs API's list at {@code httpBase} with the operators' {@code token}. */
  private static List<JsonNode> jobs(String httpBase, String token) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(httpBase + "/api/jobs"))
                    .header("Authorization", "Bearer " + token)
                    .timeout(Duration.ofSeconds(20))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    List<JsonNode> jobs = new ArrayList<>();
    new ObjectMapper().readTree(response.body()).get("jobs").forEach(jobs::add);
    return jobs;
  }

  /** The job whose SQL text is {@code sql}. */
  private static JsonNode job(List<JsonNode> jobs, String sql) {
    return jobs.stream()
        .filter(j -> j.get("name").asText().equals(sql))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no job ran " + sql + " in " + jobs));
  }

  /**
   * serve --scheduler in front of a scheduler and two executor jars that know the same users and
   * resource groups: serve holds the cluster credential, so the scheduler takes each job's user
   * from it and the user's selector picks the group.
   */
  @Test
  @Tag("slow")
  void eachJdbcUserRunsAsItselfOnACluster() throws Exception {
    Path data = data();
    Path dir = Files.createDirectories(tmp.resolve("cluster"));
    try (UsersCluster cluster =
            UsersCluster.start(dir, List.of("alice", "bob", "etl-bot"), GROUPS, 2, 2, true);
        ServeProcess server =
            ServeProcess.start(
                null,
                "--scheduler",
                cluster.processes().target(),
                "--token-file",
                dir.resolve("client.token").toString(),
                "--cluster-token-file",
                dir.resolve("cluster.token").toString(),
                "--users-file",
                dir.resolve("users").toString(),
                "--allowed-paths",
                data.toString(),
                "--set",
                "quiver.distributed.bytes_per_task=1KB")) {
      List<String> users = List.of("alice", "bob", "etl-bot");
      for (int i = 0; i < users.size(); i++) {
        String sql = sumOver(data, 10 * (i + 1));
        try (Connection c = connect(server, token(UsersCluster.token(users.get(i))))) {
          assertThat(first(c, sql)).as(sql).isEqualTo(duckdb(sql));
        }
      }
      List<JsonNode> jobs = jobs(cluster.processes().schedulerHttp(), UsersCluster.CLUSTER_TOKEN);
      for (int i = 0; i < users.size(); i++) {
        JsonNode job = job(jobs, sumOver(data, 10 * (i + 1)));
        assertThat(job.get("user").asText()).isEqualTo(users.get(i));
        assertThat(job.get("resourceGroup").asText())
            .isEqualTo(users.get(i).equals("etl-bot") ? "etl" : "adhoc");
      }
      assertRefusedLogins(server, UsersCluster.token("alice"));
    }
  }

  /** What a server without --trust-client-user answers to wrong tokens and claimed users. */
  private static void assertRefusedLogins(ServeProcess server, String aliceToken) {
    String sql = "SELECT 1 AS x";
    Throwable wrong = catchThrowable(() -> first(connect(server, token("not-a-token")), sql));
    assertThat(wrong).isInstanceOf(SQLException.class);
    assertThat(messages(wrong)).contains("token=").doesNotContain(aliceToken);
    // Alice's token with the name of another user: refused, naming the flag that would allow it.
    Throwable claimed = catchThrowable(() -> first(connect(server, basic("bob", aliceToken)), sql));
    assertThat(claimed).isInstanceOf(SQLException.class);
    assertThat(messages(claimed)).contains("'bob'").contains("--trust-client-user");
  }

  /**
   * serve --embedded with --users-file: the embedded cluster's jobs carry each token's user; a
   * client may send its own user name with its token (Basic credentials) but no other.
   */
  @Test
  void embeddedClusterJobsCarryTheTokensUser() throws Exception {
    Path data = data();
    Files.writeString(tmp.resolve("alice.token"), "qv-alice-token");
    Files.writeString(tmp.resolve("bob.token"), "qv-bob-token");
    Path users = Files.writeString(tmp.resolve("users"), "alice:alice.token\nbob:bob.token\n");
    Path clusterToken = Files.writeString(tmp.resolve("cluster.token"), "qv-cluster-token");
    try (ServeProcess server =
        ServeProcess.start(
            null,
            "--embedded",
            "2",
            "--users-file",
            users.toString(),
            "--cluster-token-file",
            clusterToken.toString(),
            "--http-port",
            "0",
            "--allowed-paths",
            data.toString())) {
      String aliceSql = sumOver(data, 7);
      String bobSql = sumOver(data, 77);
      try (Connection c = connect(server, token("qv-alice-token"))) {
        assertThat(first(c, aliceSql)).isEqualTo(duckdb(aliceSql));
      }
      try (Connection c = connect(server, basic("bob", "qv-bob-token"))) {
        assertThat(first(c, bobSql)).isEqualTo(duckdb(bobSql));
      }
      List<JsonNode> jobs = jobs("http://127.0.0.1:" + server.httpPort(), "qv-cluster-token");
      assertThat(job(jobs, aliceSql).get("user").asText()).isEqualTo("alice");
      assertThat(job(jobs, bobSql).get("user").asText()).isEqualTo("bob");
      assertRefusedLogins(server, "qv-alice-token");
    }
  }

  /**
   * serve --trust-client-user behind a front end holding the shared token: the user name the JDBC
   * client sends (user=...&password=<token>) is the job's user.
   */
  @Test
  void aTrustedFrontEndNamesTheUser() throws Exception {
    Path data = data();
    Path tokenFile = Files.writeString(tmp.resolve("token"), "qv-front-end-token");
    Path clusterToken = Files.writeString(tmp.resolve("cluster.token"), "qv-cluster-token");
    try (ServeProcess server =
        ServeProcess.start(
            null,
            "--embedded",
            "2",
            "--token-file",
            tokenFile.toString(),
            "--cluster-token-file",
            clusterToken.toString(),
            "--trust-client-user",
            "--http-port",
            "0",
            "--allowed-paths",
            data.toString())) {
      String carolSql = sumOver(data, 33);
      String plainSql = sumOver(data, 44);
      try (Connection c = connect(server, basic("carol", "qv-front-end-token"))) {
        assertThat(first(c, carolSql)).isEqualTo(duckdb(carolSql));
      }
      try (Connection c = connect(server, token("qv-front-end-token"))) {
        assertThat(first(c, plainSql)).isEqualTo(duckdb(plainSql));
      }
      List<JsonNode> jobs = jobs("http://127.0.0.1:" + server.httpPort(), "qv-cluster-token");
      assertThat(job(jobs, carolSql).get("user").asText()).isEqualTo("carol");
      // Without a name the job is the server process's own, as before.
      assertThat(job(jobs, plainSql).get("user").asText())
          .isEqualTo(System.getProperty("user.name"));
      Throwable wrong =
          catchThrowable(() -> first(connect(server, basic("carol", "wrong")), "SELECT 1"));
      assertThat(messages(wrong)).contains("token=");
    }
  }
}
