package dev.quiver.distributed.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SchedulerClientTest {
  /** A port nothing listens on is named as such, at once, not as "UNAVAILABLE (io exception)". */
  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void aDeadPortSaysNothingListensThere() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (SchedulerClient client = new SchedulerClient(ClusterConfig.remote("127.0.0.1:" + port))) {
      long start = System.nanoTime();
      assertThatThrownBy(client::executors)
          .isInstanceOf(SchedulerClient.UnreachableException.class)
          .hasMessageContaining("nothing listens at 127.0.0.1:" + port)
          .hasMessageContaining("connection refused")
          .hasMessageNotContaining("io exception");
      org.assertj.core.api.Assertions.assertThat(System.nanoTime() - start)
          .isLessThan(TimeUnit.SECONDS.toNanos(5));
    }
  }
}
