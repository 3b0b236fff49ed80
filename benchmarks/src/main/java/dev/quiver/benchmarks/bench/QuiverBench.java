package dev.quiver.benchmarks.bench;

import dev.quiver.distributed.logging.ProcessLogging;
import dev.quiver.examples.cli.QuiverCli;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code quiver-bench.jar} command line ({@code java -jar benchmarks/target/quiver-bench.jar
 * bench --sf 1 --engines quiver,duckdb}), with the {@code quiver} command line's one-line errors
 * and exit codes.
 */
@Command(
    name = "quiver-bench",
    mixinStandardHelpOptions = true,
    version = "quiver-bench " + QuiverCli.VERSION,
    description = "Benchmarks Quiver against other engines on the same Parquet files.",
    subcommands = {BenchCommand.class})
public final class QuiverBench implements Runnable {
  @CommandLine.Spec private CommandLine.Model.CommandSpec spec;

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    ProcessLogging.install("warn");
    System.exit(commandLine().execute(args));
  }

  /** A configured command line; for tests too. */
  public static CommandLine commandLine() {
    return QuiverCli.withErrorHandlers(new CommandLine(new QuiverBench()));
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
