package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.transport.InProcessTransport;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The Guice module's executor, started on gRPC's in-process transport against a fake scheduler. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ExecutorModuleTest {
  private static final String HOST = "exec-m-host";
  private static final int PORT = 7002;

  @TempDir Path tmp;

  @Test
  void moduleWiresALifecycleThatStartsARegisteredExecutor() throws Exception {
    GrpcTransport transport = new InProcessTransport();
    try (FakeScheduler scheduler = new FakeScheduler(transport)) {
      ExecutorConfig config =
          ExecutorConfig.defaults(scheduler.host(), scheduler.port(), tmp)
              .withHosts(HOST, HOST)
              .withPort(PORT)
              .withResources(1, 64L << 20);
      Injector injector = Guice.createInjector(new ExecutorModule(config, transport));
      try (ExecutorLifecycle lifecycle = injector.getInstance(ExecutorLifecycle.class)) {
        assertThat(injector.getInstance(ExecutorLifecycle.class)).isSameAs(lifecycle);
        ExecutorServer server = lifecycle.start();
        assertThat(lifecycle.start()).isSameAs(server);
        long deadline = System.currentTimeMillis() + 10_000;
        while (!server.isRegistered() && System.currentTimeMillis() < deadline) {
          Thread.sleep(10);
        }
        assertThat(server.isRegistered()).isTrue();
        assertThat(server.port()).isEqualTo(PORT);
        assertThat(scheduler.registered())
            .extracting(i -> i.getHost() + ":" + i.getFlightPort())
            .contains(HOST + ":" + PORT);
      }
    }
  }
}
