package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.expr.ComparisonExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.UdfExpr;
import dev.quiver.binding.physical.kernel.Hashing;
import dev.quiver.binding.physical.operator.FilterExec;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.physical.sort.SortExec;
import dev.quiver.binding.udf.ScalarUdf;
import dev.quiver.distributed.codec.DecodedStage;
import dev.quiver.distributed.codec.PlanCodecException;
import dev.quiver.distributed.codec.StagePlan;
import dev.quiver.distributed.proto.CancelTasksRequest;
import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.proto.RemoveJobDataRequest;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.transport.InProcessTransport;
import dev.quiver.distributed.wire.ShuffleTickets;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class TaskExecutionTest {

  @TempDir Path workDir;

  private final BufferAllocator allocator = new RootAllocator();
  private final TestPlans plans = new TestPlans();
  private final List<AutoCloseable> closeLast = new ArrayList<>();

  /** The executor's host on the in-process transport, and the port it advertises. */
  private static final String HOST = "exec-t-host";

  private static final int PORT = 7001;

  /** The executor and its fake scheduler talk without sockets. */
  private final GrpcTransport transport = new InProcessTransport();

  private FakeScheduler scheduler;
  private ExecutorServer executor;
  private ManagedChannel channel;
  private ExecutorControlGrpc.ExecutorControlBlockingStub control;

  private void start(int cores) throws Exception {
    start(cores, UnaryOperator.identity());
  }

  private void start(int cores, UnaryOperator<ExecutorConfig> adjust) throws Exception {
    scheduler = new FakeScheduler(transport);
    ExecutorConfig config =
        adjust.apply(
            ExecutorConfig.defaults(scheduler.host(), scheduler.port(), workDir.resolve("exec"))
                .withExecutorId("exec-t")
                .withHosts(HOST, HOST)
                .withPort(PORT)
                .withResources(cores, 256L << 20));
    executor = ExecutorServer.start(config, allocator, extensionLoader -> plans, transport);
    assertThat(executor.port()).isEqualTo(PORT);
    channel = transport.channelBuilder(HOST, PORT, SecurityConfig.none()).build();
    control = ExecutorControlGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (executor != null) {
      executor.close();
    }
    if (scheduler != null) {
      scheduler.close();
    }
    for (AutoCloseable c : closeLast) {
      c.close();
    }
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  private static TaskId task(String job, int stage, int task, int attempt) {
    return TaskId.newBuilder()
        .setJobId(job)
        .setStageId(stage)
        .setTaskId(task)
        .setAttempt(attempt)
        .build();
  }

  private static LaunchTaskRequest.Builder launch(TaskId id, String plan, int outputPartitions) {
    return LaunchTaskRequest.newBuilder()
        .setTask(id)
        .setPlan(ByteString.copyFrom(plan, StandardCharsets.UTF_8))
        .setOutputPartitions(outputPartitions)
        .setJobCapability(TestBatches.CAPABILITY);
  }

  private ExecutorControlGrpc.ExecutorControlBlockingStub control() {
    return control.withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  /** Rows (key, value) of one output partition, read with Flight DoGet. */
  private List<long[]> read(String job, int stage, int task, int partition) throws Exception {
    List<long[]> rows = new ArrayList<>();
    try (FlightClient client =
            FlightGrpcUtils.createFlightClient(
                allocator, transport.channelBuilder(HOST, PORT, SecurityConfig.none()).build());
        FlightStream stream =
            client.getStream(
                ShuffleTickets.encode(
                    ShuffleTickets.id(job, stage, task, partition), TestBatches.CAPABILITY))) {
      TestBatches.forEachBatch(
          stream,
          allocator,
          root -> {
            BigIntVector key = (BigIntVector) root.getVector(0);
            BigIntVector value = (BigIntVector) root.getVector(1);
            for (int i = 0; i < root.getRowCount(); i++) {
              rows.add(new long[] {key.get(i), value.get(i)});
            }
          });
    }
    return rows;
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(10);
    }
  }

  private static int expectedPartition(long key, int partitions) {
    try (BufferAllocator a = new RootAllocator();
        BigIntVector v = new BigIntVector("k", a)) {
      v.allocateNew(1);
      v.set(0, key);
      v.setValueCount(1);
      int[] hash = new int[1];
      Hashing.hashRows(List.of(v), 1, hash);
      return Hashing.partition(hash[0], partitions);
    }
  }

  /** In-process, an executor is named by its host and must be given a port to advertise. */
  @Test
  void onATransportWithoutPortsAnExecutorNeedsAPortToAdvertise() throws Exception {
    assertThatThrownBy(() -> start(1, c -> c.withPort(0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exec-t")
        .hasMessageContaining("needs a port to advertise");
  }

  @Test
  void taskSplitsItsRowsByHashIntoReadablePartitions() throws Exception {
    start(2);
    plans.add("scan", TestPlans.scan(2, 1_000, TestPlans.hashOnKey(4)));
    TaskId id = task("job-1", 1, 1, 0);
    control().launchTask(launch(id, "scan", 4).build());

    TaskStatusReport report = scheduler.awaitReport(id, TaskState.TASK_STATE_SUCCEEDED);
    assertThat(report.getExecutorId()).isEqualTo("exec-t");
    assertThat(report.getMetrics().getOutputRows()).isEqualTo(1_000);
    assertThat(report.getMetrics().getOutputBytes()).isGreaterThanOrEqualTo(1_000 * 16);

    Set<Long> values = new HashSet<>();
    Map<Long, Integer> partitionOfKey = new HashMap<>();
    for (int p = 0; p < 4; p++) {
      for (long[] row : read("job-1", 1, 1, p)) {
        assertThat(values.add(row[1])).as("value %d read twice", row[1]).isTrue();
        assertThat(row[0]).isEqualTo(TestPlans.key(row[1]));
        Integer earlier = partitionOfKey.putIfAbsent(row[0], p);
        assertThat(earlier == null ? p : earlier)
            .as("key %d in one partition", row[0])
            .isEqualTo(p);
        assertThat(p).isEqualTo(expectedPartition(row[0], 4));
      }
    }
    Set<Long> expected = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      expected.add(TestPlans.value(1, i));
    }
    assertThat(values).isEqualTo(expected);
    assertThat(partitionOfKey).hasSize(TestPlans.KEYS);
    assertThat(new HashSet<>(partitionOfKey.values())).hasSizeGreaterThan(1);
  }

  @Test
  void roundRobinAndSingleOutputsCompleteEveryPartition() throws Exception {
    start(2);
    plans.add("rr", TestPlans.scan(1, 100, Partitioning.roundRobin(3)));
    plans.add("single", TestPlans.scan(1, 100, Partitioning.single()));
    TaskId rr = task("job-2", 1, 0, 0);
    TaskId single = task("job-2", 2, 0, 0);
    control().launchTask(launch(rr, "rr", 3).build());
    control().launchTask(launch(single, "single", 2).build());
    scheduler.awaitReport(rr, TaskState.TASK_STATE_SUCCEEDED);
    scheduler.awaitReport(single, TaskState.TASK_STATE_SUCCEEDED);

    // One batch dealt to partition (task id) 0; the others are complete and empty.
    assertThat(read("job-2", 1, 0, 0)).hasSize(100);
    assertThat(read("job-2", 1, 0, 1)).isEmpty();
    assertThat(read("job-2", 1, 0, 2)).isEmpty();
    assertThat(read("job-2", 2, 0, 0)).hasSize(100);
    assertThat(read("job-2", 2, 0, 1)).isEmpty();
  }

  @Test
  void secondStageReadsTheFirstStagesOutputThroughAShuffleReader() throws Exception {
    start(2);
    int producers = 2;
    int partitions = 3;
    plans.add("produce", TestPlans.scan(producers, 500, TestPlans.hashOnKey(partitions)));
    plans.add(
        "consume",
        ctx -> {
          ShuffleReaderExec reader =
              ShuffleReaderExec.unresolved(
                      1,
                      TestPlans.SCHEMA,
                      TestPlans.hashOnKey(partitions),
                      ShuffleReaderExec.Mode.HASH,
                      producers)
                  .withLocations(ctx.inputs(), ctx.shuffleClient());
          FilterExec filter =
              new FilterExec(
                  reader,
                  new ComparisonExpr(
                      ComparisonExpr.Op.GE,
                      TestPlans.VALUE,
                      new LiteralExpr(100L, new ArrowType.Int(64, true))));
          return new DecodedStage(new StagePlan(filter, Partitioning.single()), List.of());
        });
    List<PartitionLocation> outputs = new ArrayList<>();
    for (int t = 0; t < producers; t++) {
      TaskId id = task("job-3", 1, t, 0);
      control().launchTask(launch(id, "produce", partitions).build());
      scheduler.awaitReport(id, TaskState.TASK_STATE_SUCCEEDED);
      for (int p = 0; p < partitions; p++) {
        outputs.add(
            new ShuffleLocation("job-3", 1, t, p, "exec-t", HOST, executor.port()).toProto());
      }
    }
    long rows = 0;
    for (int t = 0; t < partitions; t++) {
      TaskId id = task("job-3", 2, t, 0);
      control().launchTask(launch(id, "consume", 1).addAllInputs(outputs).build());
      rows +=
          scheduler.awaitReport(id, TaskState.TASK_STATE_SUCCEEDED).getMetrics().getOutputRows();
    }

    Set<Long> values = new HashSet<>();
    for (int t = 0; t < partitions; t++) {
      for (long[] row : read("job-3", 2, t, 0)) {
        assertThat(expectedPartition(row[0], partitions)).isEqualTo(t);
        values.add(row[1]);
      }
    }
    Set<Long> expected = new HashSet<>();
    for (int t = 0; t < producers; t++) {
      for (int i = 100; i < 500; i++) {
        expected.add(TestPlans.value(t, i));
      }
    }
    // Task 0's values below 100 are filtered out; task 1's are all >= 1_000_000.
    for (int i = 0; i < 100; i++) {
      expected.add(TestPlans.value(1, i));
    }
    assertThat(values).isEqualTo(expected);
    assertThat(rows).isEqualTo(expected.size());
  }

  @Test
  void aMissingInputPartitionFailsTheConsumerWithShuffleFetchException() throws Exception {
    start(1);
    plans.add(
        "consume",
        ctx ->
            new DecodedStage(
                new StagePlan(
                    ShuffleReaderExec.unresolved(
                            1,
                            TestPlans.SCHEMA,
                            Partitioning.single(),
                            ShuffleReaderExec.Mode.PER_TASK,
                            1)
                        .withLocations(ctx.inputs(), ctx.shuffleClient()),
                    Partitioning.single()),
                List.of()));
    TaskId id = task("job-14", 2, 0, 0);
    PartitionLocation gone =
        new ShuffleLocation("job-14", 1, 0, 0, "exec-t", HOST, executor.port()).toProto();
    control().launchTask(launch(id, "consume", 1).addInputs(gone).build());
    TaskStatusReport report = scheduler.awaitReport(id, TaskState.TASK_STATE_FAILED);
    assertThat(report.getError().getKind()).isEqualTo("ShuffleFetchException");
    assertThat(report.getError().getMessage()).contains("job job-14 stage 1 task 0 partition 0");
  }

  @Test
  void missingParquetFileFailsTheTaskWithItsKindAndDropsItsOutput() throws Exception {
    start(1);
    Path missing = workDir.resolve("no-such-file.parquet");
    plans.add(
        "parquet",
        ctx ->
            new DecodedStage(
                new StagePlan(
                    new ParquetScanExec(
                        TestPlans.SCHEMA,
                        List.of(List.of(missing.toString())),
                        null,
                        OptionalLong.empty(),
                        1024),
                    Partitioning.single()),
                List.of()));
    TaskId id = task("job-4", 1, 0, 0);
    control().launchTask(launch(id, "parquet", 1).build());
    TaskStatusReport report = scheduler.awaitReport(id, TaskState.TASK_STATE_FAILED);
    // Quiver's reader opens every Parquet file through its object store: the store's typed error,
    // a DataSourceException that says why (no such object).
    assertThat(report.getError().getKind()).isEqualTo("ObjectStoreException");
    assertThat(report.getError().getStoreReason()).isEqualTo("NOT_FOUND");
    assertThat(report.getError().getMessage()).contains("no-such-file.parquet");
    assertThat(executor.shuffleStore().partitionCount()).isZero();

    // An unknown plan is a codec error, also typed.
    TaskId unknown = task("job-4", 2, 0, 0);
    control().launchTask(launch(unknown, "no-such-plan", 1).build());
    assertThat(scheduler.awaitReport(unknown, TaskState.TASK_STATE_FAILED).getError().getKind())
        .isEqualTo("PlanCodecException");
  }

  @Test
  void cancelStopsALongTaskDropsItsOutputAndFreesItsMemory() throws Exception {
    start(2);
    TestPlans.Concurrency c = new TestPlans.Concurrency();
    plans.add(
        "endless",
        ctx ->
            new DecodedStage(
                new StagePlan(
                    new TestPlans.GeneratorExec(1, Long.MAX_VALUE, 1_000, 2, c),
                    TestPlans.hashOnKey(2)),
                List.of()));
    TaskId id = task("job-5", 1, 0, 0);
    control().launchTask(launch(id, "endless", 2).build());
    await("the task writes output", () -> executor.shuffleStore().memoryBytes() > 0);
    assertThat(executor.tasks().runningTasks()).isEqualTo(1);

    assertThat(
            control()
                .cancelTasks(CancelTasksRequest.newBuilder().addTasks(id).build())
                .getCancelled())
        .isEqualTo(1);
    scheduler.awaitReport(id, TaskState.TASK_STATE_CANCELLED);
    assertThat(executor.tasks().runningTasks()).isZero();
    assertThat(executor.shuffleStore().partitionCount()).isZero();
    assertThat(allocator.getAllocatedMemory()).isZero();
    assertThat(c.now.get()).isZero();
    // Cancelling a task that has ended is a no-op.
    assertThat(
            control()
                .cancelTasks(CancelTasksRequest.newBuilder().addTasks(id).build())
                .getCancelled())
        .isZero();
  }

  @Test
  void removingAJobCancelsItsRunningTasks() throws Exception {
    start(1);
    TestPlans.Concurrency c = new TestPlans.Concurrency();
    plans.add(
        "endless",
        ctx ->
            new DecodedStage(
                new StagePlan(
                    new TestPlans.GeneratorExec(1, Long.MAX_VALUE, 100, 2, c),
                    Partitioning.single()),
                List.of()));
    TaskId id = task("job-6", 1, 0, 0);
    control().launchTask(launch(id, "endless", 1).build());
    await("the task runs", () -> c.started.get() == 1);
    control().removeJobData(RemoveJobDataRequest.newBuilder().setJobId("job-6").build());
    scheduler.awaitReport(id, TaskState.TASK_STATE_CANCELLED);
    assertThat(executor.shuffleStore().partitionCount()).isZero();
    assertThat(allocator.getAllocatedMemory()).isZero();
  }

  @Test
  void aLaunchArrivingAfterItsJobWasRemovedIsRefusedAndWritesNothing() throws Exception {
    // A LaunchTask sent just before the scheduler cancelled the job can reach the executor after
    // the job's RemoveJobData: it must not run and leave output that nobody removes.
    start(1);
    plans.add("scan", TestPlans.scan(1, 100, Partitioning.single()));
    control().removeJobData(RemoveJobDataRequest.newBuilder().setJobId("job-late").build());
    TaskId id = task("job-late", 1, 0, 0);
    assertThatThrownBy(() -> control().launchTask(launch(id, "scan", 1).build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription()).contains("job-late").contains("removed");
            });
    assertThat(executor.tasks().activeTasks()).isZero();
    assertThat(executor.shuffleStore().partitionCount()).isZero();
    // Other jobs still run.
    TaskId other = task("job-other", 1, 0, 0);
    control().launchTask(launch(other, "scan", 1).build());
    scheduler.awaitReport(other, TaskState.TASK_STATE_SUCCEEDED);
  }

  @Test
  void relaunchReplacesTheEarlierAttemptsOutput() throws Exception {
    start(2);
    plans.add("first", TestPlans.scan(1, 50, Partitioning.single()));
    plans.add("second", TestPlans.scan(1, 20, Partitioning.single()));
    TaskId first = task("job-7", 1, 0, 0);
    control().launchTask(launch(first, "first", 1).build());
    scheduler.awaitReport(first, TaskState.TASK_STATE_SUCCEEDED);
    assertThat(read("job-7", 1, 0, 0)).hasSize(50);

    TaskId retry = task("job-7", 1, 0, 1);
    control().launchTask(launch(retry, "second", 1).build());
    scheduler.awaitReport(retry, TaskState.TASK_STATE_SUCCEEDED);
    assertThat(read("job-7", 1, 0, 0)).hasSize(20);
    assertThat(executor.shuffleStore().partitionCount()).isEqualTo(1);
  }

  @Test
  void retryOfARunningTaskCancelsTheOlderAttemptFirst() throws Exception {
    start(2);
    TestPlans.Concurrency c = new TestPlans.Concurrency();
    plans.add(
        "endless",
        ctx ->
            new DecodedStage(
                new StagePlan(
                    new TestPlans.GeneratorExec(1, Long.MAX_VALUE, 100, 2, c),
                    Partitioning.single()),
                List.of()));
    plans.add("short", TestPlans.scan(1, 30, Partitioning.single()));
    TaskId first = task("job-8", 1, 0, 0);
    control().launchTask(launch(first, "endless", 1).build());
    await("the first attempt runs", () -> c.started.get() == 1);
    // A duplicate launch of the same attempt is ignored.
    control().launchTask(launch(first, "endless", 1).build());

    TaskId retry = task("job-8", 1, 0, 1);
    control().launchTask(launch(retry, "short", 1).build());
    scheduler.awaitReport(first, TaskState.TASK_STATE_CANCELLED);
    scheduler.awaitReport(retry, TaskState.TASK_STATE_SUCCEEDED);
    assertThat(read("job-8", 1, 0, 0)).hasSize(30);
    assertThat(c.started.get()).isEqualTo(1);
  }

  private void assertInvalid(LaunchTaskRequest request, String message) {
    assertThatThrownBy(() -> control().launchTask(request))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains(message);
            });
  }

  @Test
  void badLaunchRequestsAreInvalidArgumentsAndTheServerKeepsWorking() throws Exception {
    start(1);
    plans.add("scan", TestPlans.scan(1, 10, Partitioning.single()));
    TaskId id = task("job-9", 1, 0, 0);
    assertInvalid(LaunchTaskRequest.getDefaultInstance(), "task's id");
    assertInvalid(launch(id, "", 1).build(), "has no plan");
    assertInvalid(launch(id, "scan", 0).build(), "0 output partitions");
    assertInvalid(
        launch(id, "scan", 1).putSettings("batch_size", "lots").build(), "invalid setting");
    assertInvalid(
        launch(id, "scan", 1)
            .addInputs(PartitionLocation.newBuilder().setHost("127.0.0.1").setFlightPort(1))
            .build(),
        "input location");

    control().launchTask(launch(id, "scan", 1).putSettings("batch_size", "4").build());
    assertThat(
            scheduler.awaitReport(id, TaskState.TASK_STATE_SUCCEEDED).getMetrics().getOutputRows())
        .isEqualTo(10);
    assertThat(scheduler.reports()).hasSize(1);
  }

  @Test
  void slotsAreBoundedByCoresAndHeartbeatsCountRunningTasks() throws Exception {
    start(2);
    TestPlans.Concurrency c = new TestPlans.Concurrency();
    plans.add(
        "endless",
        ctx ->
            new DecodedStage(
                new StagePlan(
                    new TestPlans.GeneratorExec(4, Long.MAX_VALUE, 10, 5, c),
                    Partitioning.single()),
                List.of()));
    List<TaskId> ids = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      TaskId id = task("job-10", 1, t, 0);
      ids.add(id);
      control().launchTask(launch(id, "endless", 1).build());
    }
    await("two tasks run", () -> c.now.get() == 2);
    await(
        "a heartbeat reports two running tasks",
        () -> scheduler.runningTasks().stream().anyMatch(n -> n == 2));
    Thread.sleep(200);
    assertThat(c.max.get()).isEqualTo(2);
    assertThat(executor.tasks().runningTasks()).isEqualTo(2);
    assertThat(executor.tasks().activeTasks()).isEqualTo(4);

    assertThat(
            control()
                .cancelTasks(CancelTasksRequest.newBuilder().addAllTasks(ids).build())
                .getCancelled())
        .isEqualTo(4);
    for (TaskId id : ids) {
      scheduler.awaitReport(id, TaskState.TASK_STATE_CANCELLED);
    }
    assertThat(c.max.get()).isEqualTo(2);
    int heartbeats = scheduler.runningTasks().size();
    await(
        "a heartbeat reports no running task",
        () -> {
          List<Integer> seen = scheduler.runningTasks();
          return seen.size() > heartbeats && seen.get(seen.size() - 1) == 0;
        });
    assertThat(scheduler.runningTasks()).allMatch(n -> n <= 2);
  }

  @Test
  void reportsAreRetriedWhileTheSchedulerIsUnavailable() throws Exception {
    start(1);
    plans.add("scan", TestPlans.scan(1, 10, Partitioning.single()));
    scheduler.refuseNextReports(2);
    TaskId id = task("job-11", 1, 0, 0);
    control().launchTask(launch(id, "scan", 1).build());
    scheduler.awaitReport(id, TaskState.TASK_STATE_SUCCEEDED);
    assertThat(scheduler.refusedReports()).isEqualTo(2);
  }

  @Test
  void plansUseUdfsFromExtensionJars() throws Exception {
    Path jar =
        ExtensionsTest.extensionJar(workDir, "double.jar", ExtensionsTest.DoublingExtension.class);
    start(1, c -> c.withExtensionJars(List.of(jar)));
    plans.add(
        "doubled",
        ctx -> {
          ScalarUdf udf =
              ctx.udfs()
                  .apply("double_it")
                  .orElseThrow(() -> new PlanCodecException("no UDF double_it"));
          DecodedStage scan = TestPlans.scan(1, 10, Partitioning.single()).apply(ctx);
          ProjectionExec project =
              new ProjectionExec(
                  scan.plan().root(),
                  List.<PhysicalExpr>of(TestPlans.KEY, new UdfExpr(udf, List.of(TestPlans.VALUE))),
                  List.of("key", "value"));
          return new DecodedStage(new StagePlan(project, Partitioning.single()), List.of(scan));
        });
    TaskId id = task("job-12", 1, 0, 0);
    control().launchTask(launch(id, "doubled", 1).build());
    scheduler.awaitReport(id, TaskState.TASK_STATE_SUCCEEDED);
    List<Long> values = read("job-12", 1, 0, 0).stream().map(r -> r[1]).sorted().toList();
    assertThat(values).containsExactly(0L, 2L, 4L, 6L, 8L, 10L, 12L, 14L, 16L, 18L);
  }

  @Test
  void aTaskThatDoesNotSpillMakesNoSpillDirectory() throws Exception {
    // Making and deleting a directory for every task cost milliseconds per stage: the spilling
    // operators make it when they first spill (see operatorSpillsAreReportedAndTheirFilesDeleted).
    start(1);
    TestPlans.Concurrency c = new TestPlans.Concurrency();
    plans.add(
        "endless",
        ctx ->
            new DecodedStage(
                new StagePlan(
                    new TestPlans.GeneratorExec(1, Long.MAX_VALUE, 100, 2, c),
                    Partitioning.single()),
                List.of()));
    TaskId id = task("job-14", 1, 0, 0);
    control().launchTask(launch(id, "endless", 1).build());
    await("the task runs", () -> c.started.get() == 1);
    try (Stream<Path> dirs = Files.walk(workDir.resolve("exec"))) {
      assertThat(dirs.filter(Files::isDirectory).map(Path::getFileName).map(Path::toString))
          .as("directories of the running task")
          .noneMatch(name -> name.contains("job-14"));
    }
    control().cancelTasks(CancelTasksRequest.newBuilder().addTasks(id).build());
    scheduler.awaitReport(id, TaskState.TASK_STATE_CANCELLED);
  }

  @Test
  void operatorSpillsAreReportedAndTheirFilesDeleted() throws Exception {
    start(1);
    TestPlans.Concurrency c = new TestPlans.Concurrency();
    plans.add(
        "sort",
        ctx ->
            new DecodedStage(
                new StagePlan(
                    new SortExec(
                        new TestPlans.GeneratorExec(1, 20, 1_000, 0, c),
                        List.of(new SortField(TestPlans.VALUE, false, false)),
                        -1,
                        true),
                    Partitioning.single()),
                List.of()));
    TaskId id = task("job-13", 1, 0, 0);
    // A small session memory limit makes the sort spill.
    control().launchTask(launch(id, "sort", 1).putSettings("memory_limit", "48k").build());
    TaskStatusReport report = scheduler.awaitReport(id, TaskState.TASK_STATE_SUCCEEDED);
    assertThat(report.getMetrics().getOutputRows()).isEqualTo(20_000);
    assertThat(report.getMetrics().getSpilledBytes()).isPositive();
    List<long[]> rows = read("job-13", 1, 0, 0);
    assertThat(rows).hasSize(20_000);
    for (int i = 1; i < rows.size(); i++) {
      assertThat(rows.get(i - 1)[1]).isGreaterThanOrEqualTo(rows.get(i)[1]);
    }
    try (Stream<Path> left = Files.walk(workDir.resolve("exec"))) {
      assertThat(
              left.filter(Files::isRegularFile).filter(p -> p.toString().contains("quiver-sort")))
          .as("sort spill files left behind")
          .isEmpty();
    }
  }
}
