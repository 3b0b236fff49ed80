package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.distributed.shuffle.ShuffleCompression;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The executor's settings are built one at a time and validated as a whole. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ExecutorConfigTest {
  private static final Path WORK = Path.of("/tmp/quiver-executor-config-test");

  @Test
  void builderStartsFromTheDefaultsAndChangesOnlyWhatItIsTold() {
    ExecutorConfig defaults = ExecutorConfig.defaults("sched", 50050, WORK);
    assertThat(defaults.host()).isEqualTo(ExecutorConfig.DEFAULT_HOST);
    assertThat(defaults.port()).isEqualTo(ExecutorConfig.DEFAULT_PORT);
    assertThat(defaults.cores()).isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(defaults.shuffleMemoryBytes()).isEqualTo(defaults.memoryBytes() / 4);
    assertThat(defaults.httpPort()).isEqualTo(ExecutorConfig.NO_HTTP);
    assertThat(defaults.shuffleTtl()).isEqualTo(ExecutorConfig.DEFAULT_SHUFFLE_TTL);

    ExecutorConfig c =
        defaults.toBuilder()
            .resources(3, 1 << 30)
            .shuffleMemoryBytes(1 << 20)
            .shuffleTtl(Duration.ofMinutes(5))
            .shuffleCompression(ShuffleCompression.ZSTD)
            .build();
    assertThat(c.cores()).isEqualTo(3);
    assertThat(c.memoryBytes()).isEqualTo(1 << 30);
    assertThat(c.shuffleMemoryBytes()).isEqualTo(1 << 20);
    assertThat(c.shuffleTtl()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.shuffleCompression()).isEqualTo(ShuffleCompression.ZSTD);
    assertThat(c.executorId()).isEqualTo(defaults.executorId());
    assertThat(c.toBuilder().build()).isEqualTo(c);
    assertThat(c.withPort(0).port()).isZero();
    assertThat(c.withPort(0).withPort(c.port())).isEqualTo(c);
  }

  @Test
  void buildRefusesOutOfRangeSettingsNamingThem() {
    ExecutorConfig.Builder b = ExecutorConfig.builder("sched", 50050, WORK);
    assertThatThrownBy(() -> b.resources(0, 1 << 20).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cores");
    assertThatThrownBy(
            () -> ExecutorConfig.builder("sched", 50050, WORK).shuffleTtl(Duration.ZERO).build())
        .hasMessageContaining("shuffle TTL");
    assertThatThrownBy(() -> ExecutorConfig.builder("sched", 0, WORK).build())
        .hasMessageContaining("scheduler port");
  }
}
