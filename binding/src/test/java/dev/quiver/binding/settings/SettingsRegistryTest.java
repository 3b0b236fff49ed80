package dev.quiver.binding.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.ParquetTable;
import dev.quiver.binding.errors.InvalidSettingException;
import dev.quiver.binding.errors.UnknownSettingException;
import dev.quiver.binding.planner.DefaultQueryPlanner;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The settings registry: every key the binding reads is registered with a type, default and
 * documentation, and {@code SET} / {@link SessionConfig#set} refuse unknown keys (suggesting the
 * closest) and bad values, typed, naming the key, before anything plans with them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SettingsRegistryTest {

  @Test
  void everyKeyTheBindingReadsIsRegisteredAndDocumented() throws IllegalAccessException {
    List<String> keys = new ArrayList<>();
    for (Field f : SessionConfig.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        keys.add((String) f.get(null));
      }
    }
    keys.add(DefaultQueryPlanner.COLLECT_BUILD_THRESHOLD_ROWS);
    keys.add(ParquetTable.ROW_GROUP_READER);
    assertThat(keys).hasSizeGreaterThan(10);
    for (String key : keys) {
      assertThat(SettingsRegistry.find(key)).as(key).isPresent();
    }
    for (Setting<?> s : SettingsRegistry.all().values()) {
      assertThat(s.doc()).as(s.key()).isNotBlank();
      assertThat(s.type()).as(s.key()).isNotBlank();
      assertThat(s.defaultText()).as(s.key()).isNotBlank();
    }
    assertThat(new BindingSettings().settings())
        .allSatisfy(s -> assertThat(SettingsRegistry.all().get(s.key())).isSameAs(s));
  }

  @Test
  void aMisspeltKeyFailsAtSetNamingTheClosestKey() {
    try (SessionContext ctx = new SessionContext()) {
      assertThatThrownBy(() -> ctx.sql("SET quiver.execution.batch_sise = 100"))
          .isInstanceOf(UnknownSettingException.class)
          .hasMessageContaining("'quiver.execution.batch_sise'")
          .hasMessageContaining("did you mean 'quiver.execution.batch_size'");
      // Short keys stand for quiver.execution.*, and are suggested in full.
      assertThatThrownBy(() -> ctx.sql("SET target_partition = 2"))
          .isInstanceOf(UnknownSettingException.class)
          .hasMessageContaining("'target_partition'")
          .hasMessageContaining("quiver.execution.target_partitions");
      assertThatThrownBy(() -> ctx.sql("SET a.b = 1"))
          .isInstanceOf(UnknownSettingException.class)
          .satisfies(e -> assertThat(((UnknownSettingException) e).key()).isEqualTo("a.b"));
      // The setting stays as it was.
      assertThat(ctx.config().batchSize()).isEqualTo(8192);
      assertThat(ctx.config().options()).doesNotContainKey("quiver.execution.batch_sise");
    }
  }

  @Test
  void aBadValueFailsAtSetNamingTheKeyAndWhatItAccepts() {
    try (SessionContext ctx = new SessionContext()) {
      List<String[]> bad =
          List.of(
              new String[] {"quiver.execution.batch_size", "'lots'", "an integer >= 1"},
              new String[] {"target_partitions", "0", "an integer >= 1"},
              new String[] {"quiver.execution.memory_limit", "'12 parsecs'", "a size"},
              new String[] {"quiver.execution.memory_limit", "-1", "a size >= 0"},
              new String[] {"quiver.parquet.row_group_reader", "'maybe'", "true or false"},
              new String[] {
                DefaultQueryPlanner.COLLECT_BUILD_THRESHOLD_ROWS, "'many'", "an integer >= 0"
              },
              new String[] {"quiver.s3.endpoint", "'ftp://example.com'", "http:// or https://"},
              new String[] {"quiver.s3.path_style", "'yes'", "true or false"});
      for (String[] b : bad) {
        String key = b[0].startsWith("quiver.") ? b[0] : "quiver.execution." + b[0];
        assertThatThrownBy(() -> ctx.sql("SET " + b[0] + " = " + b[1]))
            .as(b[0] + " = " + b[1])
            .isInstanceOf(InvalidSettingException.class)
            .hasMessageContaining(key)
            .hasMessageContaining(b[1].replace("'", ""))
            .hasMessageContaining(b[2])
            .satisfies(e -> assertThat(((InvalidSettingException) e).key()).isEqualTo(key));
      }
      assertThat(ctx.config().options()).doesNotContainKey("quiver.parquet.row_group_reader");
      assertThatThrownBy(() -> new SessionConfig().withBatchSize(0))
          .isInstanceOf(InvalidSettingException.class);
    }
  }

  @Test
  void valuesAreReadTypedWithTheirDefaults() {
    SessionConfig config = new SessionConfig();
    assertThat(config.get(BindingSettings.PARQUET_ROW_GROUP_READER)).isTrue();
    assertThat(config.get(BindingSettings.COLLECT_BUILD_THRESHOLD_ROWS))
        .isEqualTo(DefaultQueryPlanner.DEFAULT_COLLECT_BUILD_THRESHOLD_ROWS);
    assertThat(config.get(BindingSettings.S3_PATH_STYLE)).isNull();
    config
        .set("QUIVER.PARQUET.ROW_GROUP_READER", " FALSE ")
        .set("memory_limit", "64KB")
        .set("batch_size", "100");
    assertThat(config.get(BindingSettings.PARQUET_ROW_GROUP_READER)).isFalse();
    assertThat(config.memoryLimit()).isEqualTo(64 << 10);
    assertThat(config.batchSize()).isEqualTo(100);
    // Values stay as given: they travel to executors as text.
    assertThat(config.get("quiver.execution.memory_limit")).isEqualTo("64KB");
  }

  @Test
  void settingsShippedFromAnotherProcessKeepKeysOfModulesNotHereButCheckKnownOnes() {
    SessionConfig config =
        new SessionConfig()
            .setShipped(Map.of("quiver.some_client_module.flag", "x", "batch_size", "64"));
    assertThat(config.get("quiver.some_client_module.flag")).isEqualTo("x");
    assertThat(config.batchSize()).isEqualTo(64);
    assertThatThrownBy(
            () -> new SessionConfig().setShipped(Map.of("quiver.execution.batch_size", "lots")))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining("quiver.execution.batch_size");
  }

  @Test
  void secretValuesAreNeverShownAndSecretKeysAreKnown() {
    assertThat(SessionConfig.isSecret(SessionConfig.S3_SECRET_ACCESS_KEY)).isTrue();
    assertThat(SessionConfig.isSecret(SessionConfig.S3_SESSION_TOKEN)).isTrue();
    assertThat(SessionConfig.isSecret(SessionConfig.S3_REGION)).isFalse();
    Setting<String> secret = Setting.secretText("quiver.test.secret", "A test secret.");
    Setting<Integer> strictSecret = Setting.integer("quiver.test.number", 1, 1, "A test number.");
    assertThat(secret.parse("hunter2")).isEqualTo("hunter2");
    assertThatThrownBy(() -> strictSecret.parse("x"))
        .hasMessageContaining("'x'")
        .hasMessageContaining("quiver.test.number");
  }

  @Test
  void typesParseWhatTheyDocument() {
    Setting<Duration> wait = Setting.duration("quiver.test.wait", Duration.ofSeconds(60), "Wait.");
    assertThat(wait.defaultText()).isEqualTo("1m");
    assertThat(wait.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(wait.parse("30")).isEqualTo(Duration.ofSeconds(30));
    assertThat(wait.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(wait.parse("1h")).isEqualTo(Duration.ofHours(1));
    assertThatThrownBy(() -> wait.parse("soon")).isInstanceOf(InvalidSettingException.class);
    assertThatThrownBy(() -> wait.parse("5 fortnights"))
        .isInstanceOf(InvalidSettingException.class);
    assertThat(Setting.parseSize("16MB")).isEqualTo(16L << 20);
    assertThat(Setting.parseSize("2g")).isEqualTo(2L << 30);
    assertThatThrownBy(() -> Setting.parseSize("99999999999g"))
        .isInstanceOf(ArithmeticException.class);
    Setting<String> choice =
        Setting.oneOf("quiver.test.choice", List.of("a", "b"), null, "unset", "Choice.");
    assertThat(choice.parse("B")).isEqualTo("b");
    assertThatThrownBy(() -> choice.parse("c")).hasMessageContaining("one of a, b");
    assertThatThrownBy(() -> Setting.text("Quiver.Bad", "x", "Bad key."))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
