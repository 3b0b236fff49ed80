package dev.quiver.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.scheduler.config.Exclusion;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.config.Speculation;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The scheduler's settings are built one at a time and validated as a whole. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SchedulerConfigTest {

  @Test
  void builderStartsFromTheDefaultsAndChangesOnlyWhatItIsTold() {
    SchedulerConfig defaults = SchedulerConfig.defaults();
    assertThat(defaults.host()).isEqualTo(SchedulerConfig.DEFAULT_HOST);
    assertThat(defaults.port()).isEqualTo(SchedulerConfig.DEFAULT_PORT);
    assertThat(defaults.heartbeatInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(defaults.heartbeatTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(defaults.maxTaskAttempts()).isEqualTo(SchedulerConfig.DEFAULT_MAX_TASK_ATTEMPTS);
    assertThat(defaults.httpPort()).isEqualTo(SchedulerConfig.NO_HTTP);
    assertThat(defaults.speculation()).isEqualTo(Speculation.DEFAULT);
    assertThat(defaults.exclusion()).isEqualTo(Exclusion.DEFAULT);

    SchedulerConfig c =
        SchedulerConfig.builder().port(0).maxTaskAttempts(5).advertiseHost("sched.example").build();
    assertThat(c.port()).isZero();
    assertThat(c.maxTaskAttempts()).isEqualTo(5);
    assertThat(c.advertisedHost()).isEqualTo("sched.example");
    assertThat(c.heartbeatTimeout()).isEqualTo(defaults.heartbeatTimeout());
    assertThat(c.toBuilder().build()).isEqualTo(c);
    assertThat(c.withMaxTaskAttempts(1).withMaxTaskAttempts(5)).isEqualTo(c);
  }

  @Test
  void buildRefusesInconsistentSettingsNamingThem() {
    assertThatThrownBy(
            () ->
                SchedulerConfig.builder()
                    .heartbeatInterval(Duration.ofSeconds(5))
                    .heartbeatTimeout(Duration.ofSeconds(5))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("heartbeat timeout");
    assertThatThrownBy(() -> SchedulerConfig.builder().maxTaskAttempts(0).build())
        .hasMessageContaining("max task attempts");
    assertThatThrownBy(() -> SchedulerConfig.builder().httpPort(70000).build())
        .hasMessageContaining("HTTP port");
  }
}
