package dev.quiver.examples.cli;

import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.examples.cluster.ClusterTarget;
import java.nio.file.Path;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/** {@code --embedded N} or {@code --scheduler HOST:PORT}: where a command's queries run. */
public final class ClusterOptions {
  @ArgGroup(exclusive = true, multiplicity = "0..1")
  private Choice choice;

  static final class Choice {
    @Option(
        names = "--embedded",
        paramLabel = "N",
        description = "Run on a cluster of N executors started inside this process.")
    Integer embedded;

    @Option(
        names = "--scheduler",
        paramLabel = "HOST:PORT",
        description = "Run on the cluster whose scheduler listens at HOST:PORT.")
    String scheduler;
  }

  @Option(
      names = "--tls-ca",
      paramLabel = "PEM",
      description =
          "With --scheduler: connect over TLS, verifying the cluster with these CA certificates.")
  private Path tlsCa;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "File holding a token. quiver serve: every JDBC and Flight SQL client must send it"
              + " (JDBC: token=... in the URL); with --scheduler it is also sent to the cluster,"
              + " with --embedded the embedded cluster requires it too. sql and shell: needs"
              + " --scheduler; sent on every call to the cluster.")
  private Path tokenFile;

  @Option(
      names = "--cluster-token-file",
      paramLabel = "FILE",
      description =
          "quiver serve with --token-file or --users-file: the cluster credential. With --embedded"
              + " the embedded cluster's own, which its scheduler's HTTP port (web UI, jobs API,"
              + " metrics) accepts and clients do not have (default: a random one no one outside"
              + " the process knows); with --scheduler sent to the cluster instead of --token-file,"
              + " so that the scheduler takes each job's user from this server.")
  private Path clusterTokenFile;

  @Option(
      names = "--http-port",
      paramLabel = "PORT",
      description =
          "With --embedded: the scheduler serves its web UI, jobs API and metrics on"
              + " 127.0.0.1:PORT (0 for a free one, printed at start).")
  private Integer httpPort;

  @Option(
      names = "--progress",
      defaultValue = "auto",
      paramLabel = "WHEN",
      description =
          "Progress bar on stderr for distributed queries running longer than a second:"
              + " ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}, when stderr is a terminal).")
  private ProgressLine.Mode progress;

  /** When to show the progress of distributed queries. */
  ProgressLine.Mode progress() {
    return progress;
  }

  /** Opens the chosen target (local when neither option is given). */
  public ClusterTarget open() {
    if ((tlsCa != null || tokenFile != null) && (choice == null || choice.scheduler == null)) {
      throw new IllegalArgumentException("--tls-ca and --token-file need --scheduler");
    }
    if (clusterTokenFile != null) {
      throw new IllegalArgumentException("--cluster-token-file is for quiver serve --embedded");
    }
    return openTarget(SecurityConfig.none(), null);
  }

  /**
   * Opens the chosen target for a command that serves clients itself ({@code quiver serve}): there
   * {@code --token-file} also protects the command's own server, so it needs no {@code
   * --scheduler}. {@code usersFile} (may be null) is the server's {@code --users-file}: an embedded
   * cluster knows the same users; a running cluster learns each job's user from the server only
   * when it holds the cluster credential ({@code --cluster-token-file}).
   */
  public ClusterTarget openForServer(Path usersFile) {
    boolean scheduler = choice != null && choice.scheduler != null;
    boolean embedded = choice != null && choice.embedded != null;
    if (tlsCa != null && !scheduler) {
      throw new IllegalArgumentException("--tls-ca needs --scheduler");
    }
    if (clusterTokenFile != null && (tokenFile == null && usersFile == null || choice == null)) {
      throw new IllegalArgumentException(
          "--cluster-token-file needs --embedded or --scheduler, and --token-file or"
              + " --users-file");
    }
    if (usersFile != null && scheduler && clusterTokenFile == null) {
      throw new IllegalArgumentException(
          "--users-file with --scheduler needs --cluster-token-file: the scheduler takes a job's"
              + " user only from a caller holding the cluster credential (a trusted front end)");
    }
    if (scheduler) {
      SecurityConfig remote = SecurityConfig.fromFiles(null, null, tlsCa, tokenFile);
      if (usersFile != null) {
        remote = remote.withUsersFile(usersFile);
      }
      if (clusterTokenFile != null) {
        remote = remote.withClusterTokenFile(clusterTokenFile);
      }
      return openTarget(SecurityConfig.none(), remote);
    }
    return openTarget(embedded ? embeddedSecurity(usersFile) : SecurityConfig.none(), null);
  }

  /**
   * What secures an embedded cluster of a server: with a token, every port of the cluster requires
   * it, as the standalone jars do, and the cluster's own calls (registering, heartbeats, tasks, its
   * HTTP port) need a cluster credential the server's clients do not hold. Its executors accept the
   * users' tokens too (clients reading results from them with {@code --executor-endpoints}).
   */
  private SecurityConfig embeddedSecurity(Path usersFile) {
    if (tokenFile == null && usersFile == null) {
      return SecurityConfig.none();
    }
    SecurityConfig tokens = SecurityConfig.fromFiles(null, null, null, tokenFile);
    if (usersFile != null) {
      tokens = tokens.withUsersFile(usersFile);
    }
    return clusterTokenFile == null
        ? tokens.withRandomClusterToken()
        : tokens.withClusterTokenFile(clusterTokenFile);
  }

  /** The file holding the embedded cluster's credential, or null. */
  public Path clusterTokenFile() {
    return clusterTokenFile;
  }

  /** The file holding the shared token, or null. */
  public Path tokenFile() {
    return tokenFile;
  }

  /** Opens the target; {@code remoteSecurity} (null: the client options') is --scheduler's. */
  private ClusterTarget openTarget(SecurityConfig embeddedSecurity, SecurityConfig remoteSecurity) {
    if (httpPort != null && (choice == null || choice.embedded == null)) {
      throw new IllegalArgumentException(
          "--http-port needs --embedded (a running cluster's scheduler has its own --http-port)");
    }
    if (choice == null) {
      return ClusterTarget.local();
    }
    if (choice.embedded != null) {
      if (choice.embedded < 1) {
        throw new IllegalArgumentException("--embedded needs at least 1 executor");
      }
      return ClusterTarget.embedded(
          choice.embedded, httpPort == null ? -1 : httpPort, embeddedSecurity);
    }
    return ClusterTarget.remote(
        ClusterConfig.remote(choice.scheduler)
            .withSecurity(
                remoteSecurity != null
                    ? remoteSecurity
                    : SecurityConfig.fromFiles(null, null, tlsCa, tokenFile)));
  }
}
