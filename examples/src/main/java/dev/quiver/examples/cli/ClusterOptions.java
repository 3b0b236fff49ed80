package dev.quiver.examples.cli;

import dev.quiver.examples.cluster.ClusterTarget;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/** {@code --embedded N} or {@code --scheduler HOST:PORT}: where a command's queries run. */
public final class ClusterOptions {
  @ArgGroup(exclusive = true, multiplicity = "0..1")
  private Choice choice;

  static final class Choice {
    @Option(
        names = "--embedded",
        paramLabel = "N",
        description = "Run on a cluster of N executors started inside this process.")
    Integer embedded;

    @Option(
        names = "--scheduler",
        paramLabel = "HOST:PORT",
        description = "Run on the cluster whose scheduler listens at HOST:PORT.")
    String scheduler;
  }

  /** Opens the chosen target (local when neither option is given). */
  public ClusterTarget open() {
    if (choice == null) {
      return ClusterTarget.local();
    }
    if (choice.embedded != null) {
      if (choice.embedded < 1) {
        throw new IllegalArgumentException("--embedded needs at least 1 executor");
      }
      return ClusterTarget.embedded(choice.embedded);
    }
    return ClusterTarget.remote(choice.scheduler);
  }
}
