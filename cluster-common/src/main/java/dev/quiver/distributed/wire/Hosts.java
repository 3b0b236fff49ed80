package dev.quiver.distributed.wire;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Which address a server tells others to dial when it was given none to advertise. */
public final class Hosts {
  private Hosts() {}

  /** Whether {@code host} is a wildcard listen address (every interface). */
  public static boolean isWildcard(String host) {
    return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
  }

  /**
   * The address to advertise for a server listening on {@code listenHost}: that address itself, or
   * this machine's host name when it listens on every interface.
   */
  public static String advertised(String listenHost) {
    if (!isWildcard(listenHost)) {
      return listenHost;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
