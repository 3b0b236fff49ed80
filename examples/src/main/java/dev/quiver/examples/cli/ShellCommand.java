package dev.quiver.examples.cli;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.cluster.ClusterTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code quiver shell}: the interactive SQL shell (also {@code quiver sql} on a terminal). */
@Command(
    name = "shell",
    mixinStandardHelpOptions = true,
    description = "Interactive SQL: line editing, history, multi-line statements, \\d, \\timing.")
public final class ShellCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Mixin private TableOptions tables;

  @Mixin private OutputOptions output;

  @Mixin private SettingOptions settings;

  @Mixin private ClusterOptions cluster;

  @Option(
      names = "--history",
      paramLabel = "FILE",
      description = "History file (default: ~/.quiver_history).")
  private Path history;

  @Override
  public Integer call() {
    return runShell(spec, tables, output, settings, cluster, history);
  }

  /** Opens the shell on this process's terminal. */
  static int runShell(
      CommandSpec spec,
      TableOptions tables,
      OutputOptions output,
      SettingOptions settings,
      ClusterOptions cluster,
      Path history) {
    Path file =
        history != null ? history : Path.of(System.getProperty("user.home"), ".quiver_history");
    try (Terminal terminal =
        TerminalBuilder.builder()
            .system(true)
            .nativeSignals(true)
            .signalHandler(Terminal.SignalHandler.SIG_IGN)
            .build()) {
      return run(
          spec, tables, output, settings, cluster, file, terminal, spec.commandLine().getErr());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open the terminal: " + e.getMessage(), e);
    }
  }

  /** Runs the shell on {@code terminal} (tests pass one over streams). */
  static int run(
      CommandSpec spec,
      TableOptions tables,
      OutputOptions output,
      SettingOptions settings,
      ClusterOptions cluster,
      Path history,
      Terminal terminal,
      PrintWriter err) {
    SessionConfig config = settings.apply(new SessionConfig());
    PrintWriter out = terminal.writer();
    try (ClusterTarget target = cluster.open();
        SessionContext ctx = target.newSession(config)) {
      tables.register(ctx, spec);
      StatementPrinter printer =
          new StatementPrinter(
              ctx,
              output.format(),
              output.maxRows(),
              output.timing(),
              cluster.progress(),
              out,
              err);
      return new Shell(ctx, printer, terminal, history, out, err).run();
    }
  }
}
