package dev.quiver.examples.cli;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.sql.SqlScript;
import dev.quiver.examples.cluster.ClusterTarget;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code quiver sql}: runs the statements of {@code -e}, of a script ({@code -f}) or of standard
 * input, in order, over Parquet and CSV files; on a terminal without {@code -e} or {@code -f} it
 * opens the interactive shell.
 */
@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    description = {
      "Runs SQL statements over Parquet and CSV files and prints their results.",
      "Without -e or -f: reads statements from standard input, or opens the shell on a terminal."
    })
public final class SqlCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Mixin private TableOptions tables;

  @Mixin private OutputOptions output;

  @Mixin private SettingOptions settings;

  @Mixin private ClusterOptions cluster;

  @Option(
      names = {"-e", "--execute"},
      paramLabel = "SQL",
      description = "Statements to run (separated by ';').")
  private String sql;

  @Option(
      names = {"-f", "--file"},
      paramLabel = "FILE",
      description = "A script of statements to run, in order ('-' for standard input).")
  private Path file;

  /** Where standard input comes from (tests replace it). */
  InputStream stdin = System.in;

  /** Whether standard input and output are a terminal (tests replace it). */
  boolean interactive = System.console() != null;

  @Override
  public Integer call() throws IOException {
    if (sql != null && file != null) {
      throw new ParameterException(spec.commandLine(), "Give -e or -f, not both");
    }
    if (sql == null && file == null && interactive) {
      return ShellCommand.runShell(spec, tables, output, settings, cluster, null);
    }
    String text;
    if (sql != null) {
      text = sql;
    } else if (file == null || file.toString().equals("-")) {
      text = new String(stdin.readAllBytes(), StandardCharsets.UTF_8);
    } else {
      if (!Files.isRegularFile(file)) {
        throw new ParameterException(spec.commandLine(), "No script file at " + file);
      }
      text = Files.readString(file);
    }
    List<String> statements = SqlScript.splitInPlace(text);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    SessionConfig config = settings.apply(new SessionConfig());
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
      if (statements.size() > 1) {
        printer.jsonDocument();
      }
      try {
        for (int i = 0; i < statements.size(); i++) {
          try {
            printer.run(statements.get(i));
          } catch (RuntimeException e) {
            if (statements.size() == 1) {
              throw e;
            }
            err.println(
                "error in statement "
                    + (i + 1)
                    + " of "
                    + statements.size()
                    + ": "
                    + QuiverCli.oneLine(e));
            err.flush();
            return QuiverCli.EXIT_FAILURE;
          }
        }
      } finally {
        printer.endJsonDocument();
      }
    }
    return 0;
  }
}
