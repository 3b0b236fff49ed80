package dev.quiver.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.spi.RunningServer;
import dev.quiver.distributed.spi.SchedulerLauncher;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class EmbeddedSchedulerLauncherTest {

  @Test
  void serviceLoaderFindsTheLauncherAndItsSchedulerAnswers() throws Exception {
    List<SchedulerLauncher> launchers =
        ServiceLoader.load(SchedulerLauncher.class).stream()
            .map(ServiceLoader.Provider::get)
            .toList();
    assertThat(launchers).singleElement().isInstanceOf(EmbeddedSchedulerLauncher.class);
    try (RunningServer scheduler = launchers.get(0).start(0, 1000)) {
      assertThat(scheduler.id()).isEqualTo("scheduler");
      assertThat(scheduler.target()).startsWith("127.0.0.1:").doesNotEndWith(":0");
      assertThat(ListExecutorsCall.at(scheduler.target())).isEmpty();
    }
  }
}
