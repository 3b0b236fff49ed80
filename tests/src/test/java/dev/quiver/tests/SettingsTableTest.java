package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.Setting;
import dev.quiver.binding.settings.SettingsRegistry;
import dev.quiver.executor.ExecutorMain;
import dev.quiver.scheduler.SchedulerMain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The README's settings tables are the registries rendered: the session settings from the settings
 * registry (this module sees every module's: binding, distributed engine, Flight SQL server), and
 * the scheduler's and executor's from their command lines' option models (picocli, which refuses
 * unknown flags suggesting the closest and values of the wrong type). With {@code
 * -Dquiver.settings.write=true} the test rewrites the tables instead of checking them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SettingsTableTest {
  private static final Path README = Path.of("..", "README.md").toAbsolutePath().normalize();

  @Test
  void readmeListsEverySettingAsTheRegistryDefinesIt() throws IOException {
    assertThat(SettingsRegistry.all())
        .containsKeys(
            "quiver.execution.batch_size",
            "quiver.distributed.bytes_per_task",
            "quiver.shuffle.compression",
            "quiver.flight_sql.executor_endpoints");
    checkOrWrite("settings-table", table());
  }

  @Test
  void readmeListsEverySchedulerAndExecutorFlag() throws IOException {
    String scheduler = flags(new CommandLine(new SchedulerMain()).getCommandSpec());
    String executor = flags(new CommandLine(new ExecutorMain()).getCommandSpec());
    assertThat(scheduler).contains("`--heartbeat-timeout-ms=MS`");
    assertThat(scheduler).contains("`--[no-]speculation`");
    assertThat(executor).contains("`--shuffle-ttl=").contains("`--work-dir=");
    checkOrWrite("scheduler-flags-table", scheduler);
    checkOrWrite("executor-flags-table", executor);
  }

  /** Checks the README's table between the markers named {@code name}, or rewrites it. */
  private static synchronized void checkOrWrite(String name, String expected) throws IOException {
    String begin = "<!-- " + name + ":";
    String end = "<!-- /" + name + " -->";
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    int from = readme.indexOf(begin);
    int to = readme.indexOf(end);
    assertThat(from).as("README has the markers of " + name).isNotNegative();
    assertThat(to).isGreaterThan(from);
    int tableStart = readme.indexOf("-->", from) + "-->".length() + 1;
    if (Boolean.getBoolean("quiver.settings.write")) {
      Files.writeString(
          README,
          readme.substring(0, tableStart) + expected + readme.substring(to),
          StandardCharsets.UTF_8);
      return;
    }
    assertThat(readme.substring(tableStart, to))
        .as(
            "README's "
                + name
                + " (rewrite it with -Dquiver.settings.write=true, see the comment"
                + " above it)")
        .isEqualTo(expected);
  }

  /** The Markdown table of a command's options, in the order its usage help lists them. */
  static String flags(CommandSpec spec) {
    StringBuilder out = new StringBuilder();
    out.append("| Flag | Meaning |\n");
    out.append("| --- | --- |\n");
    List<OptionSpec> options = new ArrayList<>(spec.options());
    options.sort(Comparator.comparing(OptionSpec::longestName));
    for (OptionSpec o : options) {
      if (o.usageHelp() || o.versionHelp()) {
        continue;
      }
      String name = o.longestName();
      if (o.negatable()) {
        name = "--[no-]" + name.substring(2);
      }
      String flag = o.arity().max() == 0 ? name : name + "=" + o.paramLabel();
      out.append("| `")
          .append(flag)
          .append("` | ")
          .append(cell(String.join(" ", o.description())))
          .append(" |\n");
    }
    return out.toString();
  }

  /** The Markdown table of every registered setting, sorted by key. */
  static String table() {
    StringBuilder out = new StringBuilder();
    out.append("| Setting | Type | Default | Meaning |\n");
    out.append("| --- | --- | --- | --- |\n");
    for (Setting<?> s : SettingsRegistry.all().values()) {
      out.append("| `")
          .append(s.key())
          .append("` | ")
          .append(cell(s.type()))
          .append(" | ")
          .append(cell(s.defaultText()))
          .append(" | ")
          .append(cell(s.doc()))
          .append(" |\n");
    }
    return out.toString();
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }
}
