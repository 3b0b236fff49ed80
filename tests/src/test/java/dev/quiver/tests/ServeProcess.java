package dev.quiver.tests;

import dev.quiver.examples.tpch.TpchData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code java -jar quiver.jar serve --port 0 ...} as a separate process, with the TPC-H tables of a
 * folder registered; its output goes to a log file. Closing kills it and waits for it.
 */
final class ServeProcess implements AutoCloseable {
  private static final Pattern LISTENING =
      Pattern.compile("listening on ([\\w.]+):(\\d+) .*?(?:scheduler ([\\w.]+:\\d+))?\\)");

  private final Process process;
  private final Path log;
  private final String host;
  private final int port;
  private final String scheduler;

  private ServeProcess(Process process, Path log, String host, int port, String scheduler) {
    this.process = process;
    this.log = log;
    this.host = host;
    this.port = port;
    this.scheduler = scheduler;
  }

  /**
   * Starts {@code quiver serve --port 0} with the TPC-H tables of {@code tpchDir} (when not null)
   * and {@code args}; waits until it listens.
   */
  static ServeProcess start(Path tpchDir, String... args) throws IOException {
    Path jar = ProcessCluster.jar("examples", "quiver.jar");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + System.getProperty("quiver.tests.serve.xmx", "2g"));
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.add("serve");
    cmd.add("--port");
    cmd.add("0");
    if (tpchDir != null) {
      for (String table : TpchData.TABLES) {
        cmd.add("--parquet");
        cmd.add(table + "=" + TpchData.tableDirectory(tpchDir, table));
      }
    }
    if (!List.of(args).contains("--allowed-paths")) {
      cmd.addAll(List.of("--allowed-paths", ProcessCluster.testDataRoots()));
    }
    cmd.addAll(List.of(args));
    Path log = Files.createTempFile("quiver-serve", ".log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    CompletableFuture<Matcher> ready = new CompletableFuture<>();
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                      new BufferedReader(
                          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                  var out = Files.newBufferedWriter(log)) {
                String line;
                while ((line = r.readLine()) != null) {
                  out.write(line);
                  out.newLine();
                  out.flush();
                  Matcher m = LISTENING.matcher(line);
                  if (!ready.isDone() && m.find()) {
                    ready.complete(m);
                  }
                }
              } catch (IOException e) {
                ready.completeExceptionally(e);
              }
              ready.completeExceptionally(new IOException("quiver serve exited"));
            },
            "quiver-serve-log");
    pump.setDaemon(true);
    pump.start();
    try {
      Matcher m = ready.get(120, TimeUnit.SECONDS);
      return new ServeProcess(p, log, m.group(1), Integer.parseInt(m.group(2)), m.group(3));
    } catch (Exception e) {
      p.destroyForcibly();
      throw new IOException("quiver serve did not start: " + e + "\n" + Files.readString(log), e);
    }
  }

  /** The JDBC URL of the server (plaintext). */
  String jdbcUrl() {
    return "jdbc:arrow-flight-sql://" + host + ":" + port + "/?useEncryption=false";
  }

  int port() {
    return port;
  }

  /** The embedded cluster's scheduler address, or null when queries run in the server. */
  String scheduler() {
    return scheduler;
  }

  /** The embedded scheduler's HTTP port (serve --embedded N --http-port 0), as serve printed it. */
  int httpPort() {
    Matcher m = Pattern.compile("web UI on http://[\\w.]+:(\\d+)/").matcher(log());
    if (!m.find()) {
      throw new AssertionError("quiver serve printed no web UI address:\n" + log());
    }
    return Integer.parseInt(m.group(1));
  }

  /** The server's output so far. */
  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      Files.deleteIfExists(log);
    } catch (IOException ignored) {
      // a temp file
    }
  }
}
