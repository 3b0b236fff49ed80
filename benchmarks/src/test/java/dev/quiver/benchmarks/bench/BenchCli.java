package dev.quiver.benchmarks.bench;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the {@code quiver-bench} command line in process, keeping what it printed. */
final class BenchCli {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  /** Runs {@code args}; returns the exit code. */
  int run(String... args) {
    CommandLine cli = QuiverBench.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }
}
