package dev.quiver.examples.cli;

import dev.quiver.binding.settings.SessionConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code --set KEY=VALUE} and {@code --partitions N}: settings of a command's sessions. */
public final class SettingOptions {
  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "A session setting, as SET KEY = VALUE would (repeatable), e.g."
              + " quiver.s3.endpoint=http://127.0.0.1:9000.")
  private Map<String, String> settings = new LinkedHashMap<>();

  @Option(names = "--partitions", description = "Target partitions (default: number of cores).")
  private Integer partitions;

  /** The target partitions given, or null (the number of cores). */
  public Integer partitions() {
    return partitions;
  }

  /** Applies the settings to {@code config} and returns it. */
  public SessionConfig apply(SessionConfig config) {
    if (partitions != null) {
      config.withTargetPartitions(partitions);
    }
    settings.forEach(config::set);
    return config;
  }
}
