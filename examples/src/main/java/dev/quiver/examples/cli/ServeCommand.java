package dev.quiver.examples.cli;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.io.LocalFileAccess;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.security.ClientUsers;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.examples.cluster.ClusterTarget;
import dev.quiver.flightsql.FlightSqlServer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code quiver serve}: an Arrow Flight SQL server (for the JDBC driver, ADBC, DBeaver...) over the
 * tables given here and those clients create, running queries in process or on a cluster.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Serves SQL over Arrow Flight SQL, for JDBC and ADBC clients.",
      "JDBC URL: jdbc:arrow-flight-sql://HOST:PORT/?useEncryption=false"
    })
public final class ServeCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(
      names = "--port",
      defaultValue = "32010",
      description = "Port to listen on, 0 for any free one (default: ${DEFAULT-VALUE}).")
  private int port;

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description =
          "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
  private String host;

  @Mixin private TableOptions tables;

  @Mixin private ClusterOptions cluster;

  @Mixin private SettingOptions settings;

  @Option(
      names = "--tls-cert",
      paramLabel = "PEM",
      description = "Serve TLS with this certificate chain (needs --tls-key).")
  private Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "PEM",
      description = "The certificate's private key (PKCS#8).")
  private Path tlsKey;

  @Option(
      names = "--session-timeout",
      defaultValue = "60",
      paramLabel = "MINUTES",
      description =
          "Close a client's session after this many minutes without calls (default: ${DEFAULT-VALUE}).")
  private long sessionMinutes;

  @Option(
      names = "--executor-endpoints",
      description =
          "Let clients read distributed results straight from the executors (one Flight endpoint"
              + " per final task; executors must be reachable from clients). Sessions may change"
              + " it with SET quiver.flight_sql.executor_endpoints = true|false.")
  private boolean executorEndpoints;

  @Option(
      names = "--allowed-paths",
      split = ",",
      paramLabel = "PATH",
      description =
          "Local folders and files clients' SQL may read and write (read_csv, read_parquet,"
              + " Iceberg tables, COPY), comma-separated, besides those of --parquet, --csv and"
              + " --catalog iceberg:PATH; object storage is always allowed. Token and key files"
              + " and the embedded cluster's work folders never are (default: only those"
              + " given at start).")
  private List<Path> allowedPaths = new ArrayList<>();

  @Option(
      names = "--users-file",
      paramLabel = "FILE",
      description =
          "One user:token-file line per user, as the scheduler's --users-file: a client sending a"
              + " user's token (JDBC: token=... in the URL) runs as that user, whom its jobs name"
              + " (jobs API, history) and whose resource group they run in.")
  private Path usersFile;

  @Option(
      names = "--trust-client-user",
      description =
          "The server sits behind a front end that authenticates its own users: a client's jobs"
              + " run as the user name it sends (JDBC: user=NAME&password=<a token>, Basic"
              + " credentials), not as its token's user. Without it a client naming another user"
              + " than its token's is refused.")
  private boolean trustClientUser;

  @Override
  public Integer call() throws Exception {
    SecurityConfig security = SecurityConfig.fromFiles(tlsCert, tlsKey, null, cluster.tokenFile());
    if (usersFile != null) {
      security = security.withUsersFile(usersFile);
    }
    if (trustClientUser && !security.hasToken()) {
      throw new IllegalArgumentException(
          "--trust-client-user needs --token-file or --users-file: the front end trusted to name"
              + " users must itself present a token");
    }
    List<Path> roots = new ArrayList<>(allowedPaths);
    roots.addAll(tables.localPaths());
    LocalFileAccess.restrictTo(
        roots,
        SecurityConfig.secretFiles(
            usersFile, cluster.tokenFile(), cluster.clusterTokenFile(), tlsKey));
    SessionConfig config = settings.apply(new SessionConfig());
    PrintWriter out = spec.commandLine().getOut();
    try (ClusterTarget target = cluster.openForServer(usersFile);
        SessionContext catalog = target.newSession(config)) {
      tables.register(catalog, spec);
      FlightSqlServer.Options options =
          new FlightSqlServer.Options(
              host,
              port,
              security,
              Duration.ofMinutes(sessionMinutes),
              executorEndpoints,
              trustClientUser ? ClientUsers.TRUSTED : ClientUsers.FROM_TOKEN);
      try (FlightSqlServer server = FlightSqlServer.start(catalog, options, QuiverCli.VERSION)) {
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "quiver-serve-shutdown"));
        out.println(
            "Quiver Flight SQL server listening on "
                + host
                + ":"
                + server.port()
                + " (queries run in "
                + target.describe()
                + (target.distributed() ? ", scheduler " + target.runtime().config().target() : "")
                + ")");
        out.println(
            "JDBC: jdbc:arrow-flight-sql://"
                + ("0.0.0.0".equals(host) ? "127.0.0.1" : host)
                + ":"
                + server.port()
                + "/?useEncryption="
                + security.serverTls()
                + (security.hasToken() ? "&token=<the token>" : ""));
        out.flush();
        server.awaitTermination();
      }
    }
    return 0;
  }
}
