package dev.quiver.distributed.logging;

import java.util.List;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Logging of Quiver's own processes (the {@code quiver} command line, the scheduler and executor
 * jars): one backend (SLF4J's simple logger, on standard error), with the libraries' routine
 * warnings off. Call it first thing in {@code main}, before any logger exists; every setting can
 * still be overridden with the same {@code -Dorg.slf4j.simpleLogger...} system property.
 *
 * <p>Applications embedding Quiver as a library keep their own logging; the README lists the
 * loggers worth quieting there.
 */
public final class ProcessLogging {
  private static final String PREFIX = "org.slf4j.simpleLogger.";

  /**
   * Libraries whose warnings concern conditions Quiver handles itself and reports in its own words:
   * Calcite's implication checker and planner notes, gRPC's and Netty's reports of cancelled
   * streams (a client that stops reading once it has enough rows) and of connections speaking
   * another protocol (an HTTP/1 request to a gRPC port), each with a long stack trace. Their errors
   * still show.
   */
  static final List<String> QUIET = List.of("org.apache.calcite", "io.grpc", "io.netty");

  private ProcessLogging() {}

  /**
   * Sets up logging for a process whose own loggers log at {@code defaultLevel} ({@code info} for
   * servers, {@code warn} for the command line, which prints its own results).
   */
  public static synchronized void install(String defaultLevel) {
    setIfAbsent("defaultLogLevel", defaultLevel);
    setIfAbsent("logFile", "System.err");
    setIfAbsent("showDateTime", "true");
    setIfAbsent("dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSZ");
    for (String logger : QUIET) {
      setIfAbsent("log." + logger, "error");
    }
    // gRPC and Netty log through java.util.logging, whose console handler would print beside
    // SLF4J with its own format and levels; route everything through SLF4J instead.
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(PREFIX + key) == null) {
      System.setProperty(PREFIX + key, value);
    }
  }
}
