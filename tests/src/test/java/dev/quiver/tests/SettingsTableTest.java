package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.Setting;
import dev.quiver.binding.settings.SettingsRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's settings table is the settings registry rendered: this module sees every module's
 * settings (binding, distributed engine, Flight SQL server). With {@code
 * -Dquiver.settings.write=true} the test rewrites the table instead of checking it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SettingsTableTest {
  private static final Path README = Path.of("..", "README.md").toAbsolutePath().normalize();
  private static final String BEGIN = "<!-- settings-table:";
  private static final String END = "<!-- /settings-table -->";

  @Test
  void readmeListsEverySettingAsTheRegistryDefinesIt() throws IOException {
    assertThat(SettingsRegistry.all())
        .containsKeys(
            "quiver.execution.batch_size",
            "quiver.distributed.bytes_per_task",
            "quiver.shuffle.compression",
            "quiver.flight_sql.executor_endpoints");
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    int begin = readme.indexOf(BEGIN);
    int end = readme.indexOf(END);
    assertThat(begin).as("README has the settings table markers").isNotNegative();
    assertThat(end).isGreaterThan(begin);
    int tableStart = readme.indexOf("-->", begin) + "-->".length() + 1;
    String actual = readme.substring(tableStart, end);
    String expected = table();
    if (Boolean.getBoolean("quiver.settings.write")) {
      Files.writeString(
          README,
          readme.substring(0, tableStart) + expected + readme.substring(end),
          StandardCharsets.UTF_8);
      return;
    }
    assertThat(actual)
        .as(
            "README's settings table (rewrite it with -Dquiver.settings.write=true, see the"
                + " comment above it)")
        .isEqualTo(expected);
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
