package dev.quiver.scheduler.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.RemoveJobDataRequest;
import dev.quiver.distributed.proto.RemoveJobDataResponse;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.scheduler.config.SchedulerConfig;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ExecutorCallsTest {
  /**
   * A RemoveJobData still under way when the scheduler stops is cut by the scheduler itself: no
   * warning (a successful {@code quiver sql --embedded 2 -f} used to end with "WARN RemoveJobData
   * ... failed: UNAVAILABLE ... shutdownNow invoked").
   */
  @Test
  void aCallCutByClosingIsNoWarning() throws Exception {
    CountDownLatch received = new CountDownLatch(1);
    Server executor =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(
                new ExecutorControlGrpc.ExecutorControlImplBase() {
                  @Override
                  public void removeJobData(
                      RemoveJobDataRequest request, StreamObserver<RemoveJobDataResponse> out) {
                    received.countDown(); // and never answers
                  }
                })
            .build()
            .start();
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      ExecutorCalls calls =
          new ExecutorCalls(30_000, SchedulerConfig.defaults(), GrpcTransport.NETTY);
      ExecutorInfo info =
          JobFixtures.executor("exec-1", 1).toBuilder().setFlightPort(executor.getPort()).build();
      calls.removeJobData(info, "job-1", "RemoveJobData of job-1");
      assertThat(received.await(20, TimeUnit.SECONDS)).isTrue();
      calls.close();
      Thread.sleep(500);
    } finally {
      System.setErr(err);
      executor.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8)).doesNotContain("RemoveJobData of job-1");
  }
}
