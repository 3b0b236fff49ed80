package dev.quiver.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.scheduler.config.SchedulerConfig;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SchedulerModuleTest {
  @Test
  void moduleWiresALifecycleThatStartsOnlyWhenAsked() throws Exception {
    Injector injector =
        Guice.createInjector(new SchedulerModule(SchedulerConfig.defaults().withPort(0)));
    try (SchedulerLifecycle lifecycle = injector.getInstance(SchedulerLifecycle.class)) {
      assertThat(injector.getInstance(SchedulerLifecycle.class)).isSameAs(lifecycle);
      SchedulerServer server = lifecycle.start();
      assertThat(lifecycle.start()).isSameAs(server);
      assertThat(ListExecutorsCall.at("127.0.0.1:" + server.port())).isEmpty();
    }
  }
}
