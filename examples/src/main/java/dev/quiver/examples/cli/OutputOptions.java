package dev.quiver.examples.cli;

import picocli.CommandLine.Option;

/** {@code --format}, {@code --max-rows} and {@code --timing}: how results are printed. */
public final class OutputOptions {
  @Option(
      names = "--format",
      defaultValue = "table",
      description = {
        "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
        "json prints one array per result; a script of several statements prints one array of"
            + " them (jsonl: one object per row, results one after another)."
      })
  private OutputFormat format;

  @Option(
      names = "--max-rows",
      defaultValue = "" + Integer.MAX_VALUE,
      description = "Rows printed per result, in every format (default: all).")
  private int maxRows;

  @Option(names = "--timing", description = "Print each statement's time on stderr.")
  private boolean timing;

  OutputFormat format() {
    return format;
  }

  int maxRows() {
    if (maxRows < 0) {
      throw new IllegalArgumentException("--max-rows must be 0 or more");
    }
    return maxRows;
  }

  boolean timing() {
    return timing;
  }
}
