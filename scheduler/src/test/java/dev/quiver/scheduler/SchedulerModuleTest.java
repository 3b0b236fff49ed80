package dev.quiver.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.distributed.proto.ListExecutorsRequest;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.scheduler.config.SchedulerConfig;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
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
      ManagedChannel channel =
          NettyChannelBuilder.forTarget("127.0.0.1:" + server.port()).usePlaintext().build();
      try {
        assertThat(
                SchedulerGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .listExecutors(ListExecutorsRequest.getDefaultInstance())
                    .getExecutorsList())
            .isEmpty();
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }
}
