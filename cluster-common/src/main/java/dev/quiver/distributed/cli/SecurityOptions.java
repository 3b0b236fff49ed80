package dev.quiver.distributed.cli;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.security.SecurityConfig;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** A server process's TLS files and tokens. */
public final class SecurityOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(
      names = "--tls-cert",
      paramLabel = "PEM",
      description = "Certificate chain to serve TLS with (needs --tls-key).")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "PEM",
      description = "Private key of --tls-cert (unencrypted PKCS#8 PEM).")
  Path tlsKey;

  @Option(
      names = "--tls-ca",
      paramLabel = "PEM",
      description =
          "CA certificates that verify the certificates of the scheduler and executors this"
              + " process talks to (default with --tls-cert: the JDK's trusted roots).")
  Path tlsCa;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "File holding the clients' token: every call to the scheduler, and a client reading its"
              + " results from an executor, must carry it (or the cluster credential). Without"
              + " --cluster-token-file it is the single token of every role: anyone holding it can"
              + " also register as an executor.")
  Path tokenFile;

  @Option(
      names = "--cluster-token-file",
      paramLabel = "FILE",
      description =
          "File holding the cluster credential, the same for the scheduler and every executor,"
              + " which they present to each other and clients do not have: only its holders may"
              + " register as executors, heartbeat, report tasks, launch tasks and remove data."
              + " Needs --token-file; recommended whenever clients have a token.")
  Path clusterTokenFile;

  @Option(
      names = "--users-file",
      paramLabel = "FILE",
      description =
          "File of the cluster's users, the same for the scheduler and every executor, one"
              + " 'user:token-file' line each (a relative token file is read from this file's"
              + " folder): a call carrying a user's token runs as that user, with the clients'"
              + " role; the user selects the job's resource group.")
  Path usersFile;

  /** The security these files give; a file that does not read is a usage error naming it. */
  public SecurityConfig config() {
    try {
      SecurityConfig security = SecurityConfig.fromFiles(tlsCert, tlsKey, tlsCa, tokenFile);
      if (clusterTokenFile != null) {
        security = security.withClusterTokenFile(clusterTokenFile);
      }
      return usersFile == null ? security : security.withUsersFile(usersFile);
    } catch (QuiverException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** The secret files given, with {@code others}: what a process's SQL must never read. */
  public Path[] secretFiles(Path... others) {
    Path[] mine = {tokenFile, clusterTokenFile, tlsKey};
    Path[] all = new Path[mine.length + others.length];
    System.arraycopy(mine, 0, all, 0, mine.length);
    System.arraycopy(others, 0, all, mine.length, others.length);
    return SecurityConfig.secretFiles(usersFile, all);
  }
}
