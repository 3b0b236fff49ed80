package dev.quiver.distributed.client;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.security.SecurityConfig;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How a client reaches a cluster: the scheduler's {@code host:port} and the security settings (TLS
 * trust and the shared token) every connection to the cluster uses.
 */
public record ClusterConfig(String schedulerHost, int schedulerPort, SecurityConfig security) {

  /** Validates the address. */
  public ClusterConfig {
    if (schedulerHost == null || schedulerHost.isBlank()) {
      throw new QuiverException("A cluster config needs the scheduler's host");
    }
    if (schedulerPort < 1 || schedulerPort > 65535) {
      throw new QuiverException("Scheduler port out of range: " + schedulerPort);
    }
    Objects.requireNonNull(security, "security");
  }

  /** An unsecured (plaintext, no token) cluster address. */
  public ClusterConfig(String schedulerHost, int schedulerPort) {
    this(schedulerHost, schedulerPort, SecurityConfig.none());
  }

  /** A running scheduler at {@code target} ("host:port"), without TLS or token. */
  public static ClusterConfig remote(String target) {
    int colon = target == null ? -1 : target.lastIndexOf(':');
    if (colon <= 0 || colon == target.length() - 1) {
      throw new QuiverException(
          "Scheduler address must be HOST:PORT, e.g. localhost:50050; got '" + target + "'");
    }
    int port;
    try {
      port = Integer.parseInt(target.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new QuiverException("Scheduler port is not a number in '" + target + "'");
    }
    return new ClusterConfig(target.substring(0, colon), port);
  }

  /** A copy with other security settings. */
  public ClusterConfig withSecurity(SecurityConfig newSecurity) {
    return new ClusterConfig(schedulerHost, schedulerPort, newSecurity);
  }

  /** A copy connecting over TLS, verifying servers with the CA certificates in {@code caPem}. */
  public ClusterConfig withTls(Path caPem) {
    return withSecurity(security.withTrustedCa(caPem));
  }

  /** A copy sending the cluster's shared token on every call. */
  public ClusterConfig withToken(String token) {
    return withSecurity(security.withToken(token));
  }

  /** A copy sending the token held in {@code tokenFile} (trimmed) on every call. */
  public ClusterConfig withTokenFile(Path tokenFile) {
    return withSecurity(security.withTokenFile(tokenFile));
  }

  /** {@code host:port}. */
  public String target() {
    return schedulerHost + ":" + schedulerPort;
  }
}
