package dev.quiver.examples.cli;

import dev.quiver.distributed.ClusterConfig;
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
          "With --scheduler: file holding the cluster's shared token, sent on every call.")
  private Path tokenFile;

  /** Opens the chosen target (local when neither option is given). */
  public ClusterTarget open() {
    if ((tlsCa != null || tokenFile != null) && (choice == null || choice.scheduler == null)) {
      throw new IllegalArgumentException("--tls-ca and --token-file need --scheduler");
    }
    if (choice == null) {
      return ClusterTarget.local();
    }
    if (choice.embedded != null) {
      if (choice.embedded < 1) {
        throw new IllegalArgumentException("--embedded needs at least 1 executor");
      }
      return ClusterTarget.embedded(choice.embedded);
    }
    return ClusterTarget.remote(
        ClusterConfig.remote(choice.scheduler)
            .withSecurity(SecurityConfig.fromFiles(null, null, tlsCa, tokenFile)));
  }
}
