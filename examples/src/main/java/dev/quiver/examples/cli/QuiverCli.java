package dev.quiver.examples.cli;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.logging.ProcessLogging;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code quiver} command line: run SQL over files, a shell, a Flight SQL server, TPC-H. The
 * benchmark against other engines is {@code quiver-bench.jar} (module {@code benchmarks}), which
 * keeps DuckDB and Spark out of this jar.
 */
@Command(
    name = "quiver",
    mixinStandardHelpOptions = true,
    version = "quiver " + QuiverCli.VERSION,
    description = "Arrow-native SQL over Parquet and CSV files.",
    subcommands = {SqlCommand.class, ShellCommand.class, ServeCommand.class, TpchCommand.class})
public final class QuiverCli implements Runnable {
  /** The Quiver release this command line belongs to. */
  public static final String VERSION = "0.1.0";

  /** Exit code of a command whose query or input failed. */
  public static final int EXIT_FAILURE = 1;

  /** Exit code of a command line with invalid options. */
  public static final int EXIT_USAGE = 2;

  @CommandLine.Spec private CommandLine.Model.CommandSpec spec;

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    ProcessLogging.install("warn");
    System.exit(commandLine().execute(args));
  }

  /** A configured command line (one-line errors on stderr, non-zero exit codes); for tests too. */
  public static CommandLine commandLine() {
    return withErrorHandlers(new CommandLine(new QuiverCli()));
  }

  /**
   * Makes {@code cli} print errors as one line on stderr and exit with {@link #EXIT_FAILURE} (a
   * failed command) or {@link #EXIT_USAGE} (bad options); returns it.
   */
  public static CommandLine withErrorHandlers(CommandLine cli) {
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          PrintWriter err = commandLine.getErr();
          err.println("error: " + oneLine(e));
          err.flush();
          return EXIT_FAILURE;
        });
    cli.setParameterExceptionHandler(
        (e, args) -> {
          PrintWriter err = e.getCommandLine().getErr();
          err.println(
              "error: "
                  + oneLine(e)
                  + didYouMean(e)
                  + " (see '"
                  + e.getCommandLine().getCommandSpec().qualifiedName()
                  + " --help')");
          err.flush();
          return EXIT_USAGE;
        });
    return cli;
  }

  /** Picocli's nearest options or subcommands to a misspelt one, as "; did you mean ...?". */
  static String didYouMean(CommandLine.ParameterException e) {
    if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
      List<String> nearest = u.getSuggestions();
      return "; did you mean "
          + String.join(" or ", nearest.subList(0, Math.min(3, nearest.size())))
          + "?";
    }
    return "";
  }

  /** A one-line description of an error: its message, or its type when it has none. */
  public static String oneLine(Throwable e) {
    Throwable t = e;
    // Wrappers without a message of their own say less than their cause.
    while (t.getMessage() == null && t.getCause() != null) {
      t = t.getCause();
    }
    String message = t.getMessage();
    if (message == null || message.isBlank()) {
      message = t.getClass().getSimpleName();
    } else if (!(t instanceof QuiverException)
        && !(t instanceof IllegalArgumentException)
        && !(t instanceof CommandLine.PicocliException)) {
      message = t.getClass().getSimpleName() + ": " + message;
    }
    String first = message.strip().lines().findFirst().orElse(message);
    return first.length() > 500 ? first.substring(0, 500) + "..." : first;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
