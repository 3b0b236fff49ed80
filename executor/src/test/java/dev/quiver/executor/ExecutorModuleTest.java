package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ExecutorModuleTest {
  @TempDir Path tmp;

  @Test
  void moduleWiresALifecycleThatStartsARegisteredExecutor() throws Exception {
    try (FakeScheduler scheduler = new FakeScheduler()) {
      ExecutorConfig config =
          ExecutorConfig.defaults("127.0.0.1", scheduler.port(), tmp)
              .withPort(0)
              .withResources(1, 64L << 20);
      Injector injector = Guice.createInjector(new ExecutorModule(config));
      try (ExecutorLifecycle lifecycle = injector.getInstance(ExecutorLifecycle.class)) {
        assertThat(injector.getInstance(ExecutorLifecycle.class)).isSameAs(lifecycle);
        ExecutorServer server = lifecycle.start();
        assertThat(lifecycle.start()).isSameAs(server);
        long deadline = System.currentTimeMillis() + 10_000;
        while (!server.isRegistered() && System.currentTimeMillis() < deadline) {
          Thread.sleep(10);
        }
        assertThat(server.isRegistered()).isTrue();
        assertThat(server.port()).isPositive();
      }
    }
  }
}
