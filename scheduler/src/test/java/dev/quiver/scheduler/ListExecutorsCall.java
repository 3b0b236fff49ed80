package dev.quiver.scheduler;

import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.ListExecutorsRequest;
import dev.quiver.distributed.proto.SchedulerGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Asks a plaintext scheduler for its executors over a channel of its own, as a client would. */
final class ListExecutorsCall {
  private ListExecutorsCall() {}

  static List<ExecutorStatus> at(String target) throws InterruptedException {
    ManagedChannel channel = NettyChannelBuilder.forTarget(target).usePlaintext().build();
    try {
      return SchedulerGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .listExecutors(ListExecutorsRequest.getDefaultInstance())
          .getExecutorsList();
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
