package dev.quiver.distributed.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.InvalidSettingException;
import dev.quiver.binding.errors.UnknownSettingException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.settings.Setting;
import dev.quiver.binding.settings.SettingsRegistry;
import dev.quiver.distributed.codec.PlanCodec;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The distributed engine's settings are in the binding's registry (found through ServiceLoader), so
 * a misspelt or badly valued {@code quiver.distributed.*} setting fails at {@code SET} rather than
 * doing nothing or failing inside the planner with a raw NumberFormatException.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DistributedSettingsTest {

  @Test
  void everyDistributedKeyIsRegistered() {
    for (String key :
        List.of(
            DistributedSettings.ENABLED,
            DistributedSettings.BYTES_PER_TASK,
            DistributedSettings.BROADCAST_THRESHOLD_ROWS,
            DistributedSettings.MAX_TASKS,
            DistributedSettings.SCHEDULER_WAIT,
            PlanCodec.MAX_SHIPPED_BYTES,
            ShuffleCompression.SETTING)) {
      assertThat(SettingsRegistry.find(key)).as(key).isPresent();
    }
    for (Setting<?> s : new DistributedSettings().settings()) {
      assertThat(SettingsRegistry.all().get(s.key())).isSameAs(s);
    }
  }

  @Test
  void aMisspeltDistributedKeyFailsAtSetSuggestingTheRightOne() {
    try (SessionContext ctx = new SessionContext()) {
      assertThatThrownBy(() -> ctx.sql("SET quiver.distributed.bytes_per_tsk = 1"))
          .isInstanceOf(UnknownSettingException.class)
          .hasMessageStartingWith("Unknown setting 'quiver.distributed.bytes_per_tsk'")
          .hasMessageEndingWith("did you mean 'quiver.distributed.bytes_per_task'?");
    }
  }

  @Test
  void badDistributedValuesFailAtSetNamingTheKey() {
    try (SessionContext ctx = new SessionContext()) {
      for (String[] b :
          List.of(
              new String[] {DistributedSettings.BYTES_PER_TASK, "'lots'"},
              new String[] {DistributedSettings.BYTES_PER_TASK, "0"},
              new String[] {DistributedSettings.MAX_TASKS, "-1"},
              new String[] {DistributedSettings.BROADCAST_THRESHOLD_ROWS, "1e6"},
              new String[] {DistributedSettings.ENABLED, "'sometimes'"},
              new String[] {DistributedSettings.SCHEDULER_WAIT, "'a while'"},
              new String[] {PlanCodec.MAX_SHIPPED_BYTES, "'big'"},
              new String[] {ShuffleCompression.SETTING, "'snappy'"})) {
        assertThatThrownBy(() -> ctx.sql("SET " + b[0] + " = " + b[1]))
            .as(b[0])
            .isInstanceOf(InvalidSettingException.class)
            .hasMessageContaining(b[0]);
      }
    }
  }

  @Test
  void typedReadsAndDefaults() {
    SessionConfig config = new SessionConfig();
    assertThat(DistributedSettings.enabled(config)).isTrue();
    assertThat(DistributedSettings.bytesPerTask(config))
        .isEqualTo(DistributedSettings.DEFAULT_BYTES_PER_TASK);
    assertThat(DistributedSettings.maxTasks(config)).isZero();
    assertThat(DistributedSettings.schedulerWait(config.options()))
        .isEqualTo(DistributedSettings.DEFAULT_SCHEDULER_WAIT);
    config
        .set(DistributedSettings.ENABLED, "FALSE")
        .set(DistributedSettings.BYTES_PER_TASK, "64KB")
        .set(DistributedSettings.MAX_TASKS, "3")
        .set(DistributedSettings.SCHEDULER_WAIT, "500ms");
    assertThat(DistributedSettings.enabled(config)).isFalse();
    assertThat(DistributedSettings.bytesPerTask(config)).isEqualTo(64 << 10);
    assertThat(DistributedSettings.maxTasks(config)).isEqualTo(3);
    assertThat(DistributedSettings.schedulerWait(Map.of(DistributedSettings.SCHEDULER_WAIT, "2m")))
        .isEqualTo(Duration.ofMinutes(2));
  }
}
