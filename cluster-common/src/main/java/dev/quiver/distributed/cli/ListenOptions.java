package dev.quiver.distributed.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Where a server process listens and the address others reach it at. */
public final class ListenOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(
      names = "--host",
      paramLabel = "HOST",
      description =
          "Address to listen on, the server's port and HTTP; 0.0.0.0 for every interface"
              + " (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(
      names = "--advertise-host",
      paramLabel = "HOST",
      description =
          "Address the scheduler, executors and clients reach this process at, as logs and the"
              + " web UI show it (default: --host, or this machine's name when --host is a"
              + " wildcard).")
  String advertiseHost;

  @Option(
      names = "--http-port",
      paramLabel = "PORT",
      description =
          "Serve /healthz, /readyz and /metrics (the scheduler also the /api/ JSON API and the web"
              + " UI) on this port of --host, with the same TLS and token; 0 for any free port"
              + " (default: none).")
  Integer httpPort;

  /** Options listening on {@code defaultHost} unless told. */
  public ListenOptions(String defaultHost) {
    this.host = defaultHost;
  }

  /** The address to listen on. */
  public String host() {
    return host;
  }

  /** The address to advertise; null for the default. */
  public String advertiseHost() {
    return advertiseHost;
  }

  /** The HTTP port, or {@code none} without one; a port out of range is a usage error. */
  public int httpPort(int none) {
    if (httpPort == null) {
      return none;
    }
    if (httpPort < 0 || httpPort > 65535) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--http-port must be in 0..65535, got " + httpPort);
    }
    return httpPort;
  }
}
