package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.spi.ExecutorLauncher;
import dev.quiver.distributed.spi.RunningServer;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.transport.InProcessTransport;
import io.grpc.ManagedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher the embedded cluster finds: the one {@link ServiceLoader} gives runs over TCP, as
 * the cluster's executors do; the rest runs on gRPC's in-process transport.
 */
@Timeout(60)
class EmbeddedExecutorLauncherTest {

  @TempDir Path tmp;

  @Test
  void isFoundAsAServiceAndDecodesWithTheExecutorsCodecByDefault() throws Exception {
    List<ExecutorLauncher> launchers =
        ServiceLoader.load(ExecutorLauncher.class).stream()
            .map(ServiceLoader.Provider::get)
            .toList();
    assertThat(launchers).singleElement().isInstanceOf(EmbeddedExecutorLauncher.class);

    // The default launcher decodes with the plan codec: bytes that are no plan fail typed.
    try (FakeScheduler scheduler = new FakeScheduler();
        RunningServer executor =
            launchers
                .get(0)
                .start("127.0.0.1:" + scheduler.port(), tmp.resolve("w"), 1, 64L << 20)) {
      TaskId id = TaskId.newBuilder().setJobId("j").setStageId(1).build();
      launch(GrpcTransport.NETTY, executor, id, "anything");
      TaskStatusReport report = scheduler.awaitReport(id, TaskState.TASK_STATE_FAILED);
      assertThat(report.getError().getKind()).isEqualTo("PlanCodecException");
      assertThat(report.getError().getMessage()).containsIgnoringCase("plan");
    }
    assertThat(EmbeddedExecutorLauncher.rootAllocator().getAllocatedMemory()).isZero();
  }

  @Test
  void startsARegisteredExecutorThatRunsTasksAndCleansUpOnClose() throws Exception {
    TestPlans plans = new TestPlans().add("scan", TestPlans.scan(1, 10, Partitioning.single()));
    Path workDir = tmp.resolve("executor-1");
    GrpcTransport transport = new InProcessTransport();
    try (FakeScheduler scheduler = new FakeScheduler(transport)) {
      RunningServer executor =
          new EmbeddedExecutorLauncher(extensionLoader -> plans, transport)
              .start(scheduler.host() + ":" + scheduler.port(), workDir, 2, 64L << 20);
      try {
        assertThat(executor.id()).startsWith("embedded-");
        // Off TCP an executor is named by its id.
        assertThat(executor.target())
            .isEqualTo(executor.id() + ":" + EmbeddedExecutorLauncher.PORT_OFF_TCP);
        TaskId id = TaskId.newBuilder().setJobId("j").setStageId(1).build();
        launch(transport, executor, id, "scan");
        TaskStatusReport report = scheduler.awaitReport(id, TaskState.TASK_STATE_SUCCEEDED);
        assertThat(report.getExecutorId()).isEqualTo(executor.id());
        assertThat(scheduler.registered())
            .extracting(i -> i.getExecutorId() + "@" + i.getHost() + ":" + i.getFlightPort())
            .contains(executor.id() + "@" + executor.target());
        assertThat(report.getMetrics().getOutputRows()).isEqualTo(10);
        assertThat(EmbeddedExecutorLauncher.rootAllocator().getAllocatedMemory()).isPositive();
      } finally {
        executor.close();
      }
      assertThat(Files.exists(workDir)).as("work directory deleted").isFalse();
      assertThat(EmbeddedExecutorLauncher.rootAllocator().getAllocatedMemory()).isZero();
    }
  }

  @Test
  void aBadSchedulerTargetIsRefused() {
    assertThatThrownBy(
            () -> new EmbeddedExecutorLauncher(new TestPlans()).start("nowhere", tmp, 1, 1 << 20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HOST:PORT");
  }

  private static void launch(
      GrpcTransport transport, RunningServer executor, TaskId id, String plan) throws Exception {
    String[] hostPort = executor.target().split(":");
    ManagedChannel channel =
        transport
            .channelBuilder(hostPort[0], Integer.parseInt(hostPort[1]), SecurityConfig.none())
            .build();
    try {
      ExecutorControlGrpc.newBlockingStub(channel)
          .withDeadlineAfter(30, TimeUnit.SECONDS)
          .launchTask(
              LaunchTaskRequest.newBuilder()
                  .setTask(id)
                  .setPlan(ByteString.copyFrom(plan, StandardCharsets.UTF_8))
                  .setOutputPartitions(1)
                  .setJobCapability(TestBatches.CAPABILITY)
                  .build());
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
