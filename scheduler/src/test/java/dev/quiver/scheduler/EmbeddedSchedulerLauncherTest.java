package dev.quiver.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.proto.ListExecutorsRequest;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.spi.RunningServer;
import dev.quiver.distributed.spi.SchedulerLauncher;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
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
      ManagedChannel channel =
          NettyChannelBuilder.forTarget(scheduler.target()).usePlaintext().build();
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
