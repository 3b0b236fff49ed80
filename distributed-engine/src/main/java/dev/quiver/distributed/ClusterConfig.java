package dev.quiver.distributed;

import dev.quiver.binding.QuiverException;

/**
 * How a client reaches a cluster: the scheduler's {@code host:port} (and, later, security
 * settings).
 */
public record ClusterConfig(String schedulerHost, int schedulerPort) {

  /** Validates the address. */
  public ClusterConfig {
    if (schedulerHost == null || schedulerHost.isBlank()) {
      throw new QuiverException("A cluster config needs the scheduler's host");
    }
    if (schedulerPort < 1 || schedulerPort > 65535) {
      throw new QuiverException("Scheduler port out of range: " + schedulerPort);
    }
  }

  /** A running scheduler at {@code target} ("host:port"). */
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

  /** {@code host:port}. */
  public String target() {
    return schedulerHost + ":" + schedulerPort;
  }
}
