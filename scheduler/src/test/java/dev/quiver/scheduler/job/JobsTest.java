package dev.quiver.scheduler.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.CancelJobRequest;
import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusRequest;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.NextSplitsRequest;
import dev.quiver.distributed.proto.NextSplitsResponse;
import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.proto.ReleaseJobRequest;
import dev.quiver.distributed.proto.ScanSplits;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.proto.SplitList;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.SubmitJobRequest;
import dev.quiver.distributed.proto.SubmitJobResponse;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskSummary;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.transport.InProcessTransport;
import dev.quiver.distributed.wire.WireProtocol;
import dev.quiver.scheduler.SchedulerServer;
import dev.quiver.scheduler.admission.ResourceGroups;
import dev.quiver.scheduler.config.Exclusion;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.time.SchedulerClock;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class JobsTest {

  private static final Duration INTERVAL = Duration.ofMillis(100);
  private static final Duration TIMEOUT = Duration.ofMillis(600);

  private final List<FakeExecutor.Launch> log = new ArrayList<>();
  private final List<FakeExecutor> executors = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  /** The real scheduler services without sockets; a test may switch to TCP before starting. */
  private GrpcTransport transport = new InProcessTransport();

  /**
   * The scheduler's monotonic clock, which moves only when a test moves it: no executor is lost
   * because a loaded machine delayed its heartbeats, so every loss in these tests is the one the
   * test caused (a killed executor, noticed by its broken channel or a failed call), and the job
   * manager's timers fire exactly when a test says.
   */
  private final AtomicLong nanos = new AtomicLong();

  private SchedulerServer server;
  private SchedulerGrpc.SchedulerBlockingStub stub;

  private void startScheduler(SchedulerConfig config) throws Exception {
    ExecutorRegistry registry =
        new ExecutorRegistry(TIMEOUT, SchedulerClock.of(nanos::get, System::currentTimeMillis));
    server =
        SchedulerServer.start(
            config.withPort(0).withHeartbeat(INTERVAL, TIMEOUT), transport, registry);
    stub = newStub();
  }

  private void startScheduler() throws Exception {
    startScheduler(SchedulerConfig.defaults());
  }

  private SchedulerGrpc.SchedulerBlockingStub newStub() {
    ManagedChannel channel =
        transport.channelBuilder(server.host(), server.port(), SecurityConfig.none()).build();
    channels.add(channel);
    return SchedulerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private FakeExecutor executor(String id, int cores) throws Exception {
    FakeExecutor e = new FakeExecutor(id, cores, transport, server.host(), server.port(), log);
    executors.add(e);
    return e;
  }

  /** A fake executor that has not registered: the test registers it when it chooses. */
  private FakeExecutor unregisteredExecutor(String id, int cores) throws Exception {
    FakeExecutor e =
        new FakeExecutor(id, cores, transport, server.host(), server.port(), log, false);
    executors.add(e);
    return e;
  }

  @AfterEach
  void stop() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    for (FakeExecutor e : executors) {
      e.close();
    }
    if (server != null) {
      server.close();
    }
  }

  // ------------------------------------------------------------------------------------------
  // Helpers
  // ------------------------------------------------------------------------------------------

  private static StageSpec stage(int id, int tasks, int outputPartitions, Integer... inputs) {
    return StageSpec.newBuilder()
        .setStageId(id)
        .setTaskCount(tasks)
        .setOutputPartitions(outputPartitions)
        .addAllInputStageIds(List.of(inputs))
        .setPlan(ByteString.copyFromUtf8("plan of stage " + id))
        .build();
  }

  private static JobSpec job(int finalStage, StageSpec... stages) {
    return JobSpec.newBuilder()
        .setName("test job")
        .setFinalStageId(finalStage)
        .addAllStages(List.of(stages))
        .putSettings("quiver.batch_size", "1024")
        .build();
  }

  /** A producer stage 1 (2 tasks) feeding a final stage 2 (1 task). */
  private static JobSpec twoStages() {
    return job(2, stage(1, 2, 1), stage(2, 1, 1, 1));
  }

  private String submit(JobSpec spec) {
    return submit(stub, spec);
  }

  private static String submit(SchedulerGrpc.SchedulerBlockingStub s, JobSpec spec) {
    return remember(
        s.submitJob(
            SubmitJobRequest.newBuilder()
                .setProtocolVersion(WireProtocol.VERSION)
                .setJob(spec)
                .build()));
  }

  /** Each submitted job's capability, which watching, cancelling and releasing it need. */
  private static final Map<String, ByteString> CAPABILITIES = new ConcurrentHashMap<>();

  private static String remember(SubmitJobResponse submitted) {
    assertThat(submitted.getJobCapability().size()).isEqualTo(32);
    ByteString known = CAPABILITIES.putIfAbsent(submitted.getJobId(), submitted.getJobCapability());
    assertThat(known == null || known.equals(submitted.getJobCapability()))
        .as("a repeated submission answers with the same capability")
        .isTrue();
    return submitted.getJobId();
  }

  private static ByteString capability(String id) {
    return CAPABILITIES.getOrDefault(id, ByteString.EMPTY);
  }

  /** Every update of the job's status stream, until it ends. */
  private static List<JobStatusUpdate> follow(SchedulerGrpc.SchedulerBlockingStub s, String id) {
    return follow(s, id, new CountDownLatch(1));
  }

  /**
   * Follows a job's status stream to its end, counting {@code started} down at the first update.
   */
  private static List<JobStatusUpdate> follow(
      SchedulerGrpc.SchedulerBlockingStub s, String id, CountDownLatch started) {
    List<JobStatusUpdate> updates = new ArrayList<>();
    Iterator<JobStatusUpdate> it =
        s.jobStatus(
            JobStatusRequest.newBuilder().setJobId(id).setJobCapability(capability(id)).build());
    it.forEachRemaining(
        u -> {
          updates.add(u);
          if (updates.size() == 1) {
            started.countDown();
          }
        });
    return updates;
  }

  private JobStatusUpdate await(String id) {
    List<JobStatusUpdate> updates = follow(stub, id);
    assertThat(updates).isNotEmpty();
    return updates.get(updates.size() - 1);
  }

  private static void waitFor(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition not met in time").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private List<FakeExecutor.Launch> launches() {
    synchronized (log) {
      return List.copyOf(log);
    }
  }

  private List<FakeExecutor.Launch> launchesOf(int stage) {
    return launches().stream().filter(l -> l.task().getStageId() == stage).toList();
  }

  private static ErrorInfo error(String kind, String message) {
    return ErrorInfo.newBuilder().setKind(kind).setMessage(message).build();
  }

  private static StatusRuntimeException statusError(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("expected the call to fail");
  }

  // ------------------------------------------------------------------------------------------
  // Tests
  // ------------------------------------------------------------------------------------------

  @Test
  void aDrainingExecutorGetsNoNewTasksAndStaysAliveServingItsOutputs() throws Exception {
    startScheduler();
    FakeExecutor a = executor("exec-a", 4);
    executor("exec-b", 1);
    // exec-a has the most free slots: before the drain, it gets tasks.
    JobStatusUpdate first = await(submit(job(2, stage(1, 2, 1), stage(2, 1, 1, 1))));
    assertThat(first.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(launches()).extracting(FakeExecutor.Launch::executorId).contains("exec-a");

    assertThat(server.registry().drain("exec-a")).isTrue();
    assertThat(server.registry().drain("no-such-executor")).isFalse();
    int before = launches().size();
    JobStatusUpdate next = await(submit(job(2, stage(1, 3, 1), stage(2, 1, 1, 1))));
    assertThat(next.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(launches().subList(before, launches().size()))
        .hasSize(4)
        .extracting(FakeExecutor.Launch::executorId)
        .containsOnly("exec-b");
    // Draining is not lost: its outputs stay readable, and it is listed as draining.
    assertThat(server.registry().list(false))
        .filteredOn(s -> s.getInfo().getExecutorId().equals("exec-a"))
        .singleElement()
        .satisfies(s -> assertThat(s.getDraining()).isTrue());
    assertThat(server.registry().schedulable())
        .extracting(i -> i.getExecutorId())
        .containsExactly("exec-b");
    assertThat(a.launches).isNotEmpty();
  }

  @Test
  void malformedJobsAreRefusedNamingTheProblem() throws Exception {
    startScheduler();
    Map<JobSpec, String> cases =
        Map.of(
            job(1), "no stages",
            job(1, stage(1, 1, 1), stage(1, 1, 1)), "stage 1 appears twice",
            job(1, stage(1, 0, 1)), "stage 1 has task_count 0",
            job(1, stage(1, 1, 0)), "stage 1 has output_partitions 0",
            job(2, stage(1, 1, 1), stage(2, 1, 1, 7)), "reads input stage 7",
            job(9, stage(1, 1, 1)), "final stage 9 is not in the job",
            job(3, stage(1, 1, 1, 2), stage(2, 1, 1, 1), stage(3, 1, 1, 1)), "cycle",
            job(1, stage(1, 1, 1).toBuilder().setPlan(ByteString.EMPTY).build()),
                "stage 1 has no plan bytes",
            job(1, stage(1, 1, 1), stage(2, 1, 1)), "stage 2 does not feed final stage 1");
    for (Map.Entry<JobSpec, String> c : cases.entrySet()) {
      StatusRuntimeException e = statusError(() -> submit(c.getKey()));
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(e.getStatus().getDescription()).contains(c.getValue());
    }
    // The server keeps serving, and unknown jobs are NOT_FOUND.
    String unknown = "job-0-none";
    assertThat(statusError(() -> follow(stub, unknown)).getStatus().getCode())
        .isEqualTo(Status.Code.NOT_FOUND);
    assertThat(
            statusError(
                    () -> stub.cancelJob(CancelJobRequest.newBuilder().setJobId(unknown).build()))
                .getStatus()
                .getDescription())
        .contains(unknown);
    assertThat(
            statusError(
                    () -> stub.releaseJob(ReleaseJobRequest.newBuilder().setJobId(unknown).build()))
                .getStatus()
                .getCode())
        .isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void stagesRunInDependencyOrderWithTheirInputsSpreadOverExecutors() throws Exception {
    startScheduler();
    FakeExecutor a = executor("exec-a", 2);
    FakeExecutor b = executor("exec-b", 2);
    // Two producers (1, 2) feed a join stage (3) whose output a final stage (4) gathers.
    JobSpec spec = job(4, stage(1, 2, 2), stage(2, 2, 2), stage(3, 2, 1, 1, 2), stage(4, 1, 1, 3));
    // The final stage's task waits until both status streams have started, so that they see the
    // job running and then finishing however fast the other stages go.
    for (FakeExecutor e : List.of(a, b)) {
      e.script =
          r ->
              r.getTask().getStageId() == 4
                  ? FakeExecutor.Outcome.held()
                  : FakeExecutor.Outcome.succeed();
    }
    String id = submit(spec);
    assertThat(id).matches("[A-Za-z0-9_-]+");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CountDownLatch streaming = new CountDownLatch(2);
      Future<List<JobStatusUpdate>> first = pool.submit(() -> follow(newStub(), id, streaming));
      Future<List<JobStatusUpdate>> second = pool.submit(() -> follow(newStub(), id, streaming));
      assertThat(streaming.await(30, TimeUnit.SECONDS)).isTrue();
      waitFor(() -> launchesOf(4).size() == 1);
      FakeExecutor.Launch last = launchesOf(4).get(0);
      (last.executorId().equals("exec-a") ? a : b)
          .complete(last.task(), FakeExecutor.Outcome.succeed());
      List<JobStatusUpdate> updates = first.get(30, TimeUnit.SECONDS);
      assertThat(second.get(30, TimeUnit.SECONDS).get(second.get().size() - 1))
          .isEqualTo(updates.get(updates.size() - 1));

      // Launch order: every producer before the join, the join before the final stage.
      List<FakeExecutor.Launch> all = launches();
      assertThat(all).hasSize(7);
      int lastProducer = lastIndex(all, Set.of(1, 2));
      assertThat(firstIndex(all, Set.of(3))).isGreaterThan(lastProducer);
      assertThat(firstIndex(all, Set.of(4))).isGreaterThan(lastIndex(all, Set.of(3)));

      // Tasks spread: each producer stage ran on both executors.
      for (int s : List.of(1, 2)) {
        assertThat(launchesOf(s).stream().map(FakeExecutor.Launch::executorId))
            .containsExactlyInAnyOrder("exec-a", "exec-b");
      }

      // The join's inputs: every partition of every task of stages 1 and 2, where it ran.
      Map<String, FakeExecutor> byId = Map.of("exec-a", a, "exec-b", b);
      for (FakeExecutor.Launch join : launchesOf(3)) {
        LaunchTaskRequest r = join.request();
        assertThat(r.getPlan().toStringUtf8()).isEqualTo("plan of stage 3");
        assertThat(r.getOutputPartitions()).isEqualTo(1);
        assertThat(r.getSettingsMap()).containsEntry("quiver.batch_size", "1024");
        assertThat(r.getTask().getJobId()).isEqualTo(id);
        assertThat(r.getInputsList())
            .extracting(
                p -> p.getPartition().getStageId(),
                p -> p.getPartition().getTaskId(),
                p -> p.getPartition().getPartition())
            .containsExactly(
                org.assertj.core.groups.Tuple.tuple(1, 0, 0),
                org.assertj.core.groups.Tuple.tuple(1, 0, 1),
                org.assertj.core.groups.Tuple.tuple(1, 1, 0),
                org.assertj.core.groups.Tuple.tuple(1, 1, 1),
                org.assertj.core.groups.Tuple.tuple(2, 0, 0),
                org.assertj.core.groups.Tuple.tuple(2, 0, 1),
                org.assertj.core.groups.Tuple.tuple(2, 1, 0),
                org.assertj.core.groups.Tuple.tuple(2, 1, 1));
        for (PartitionLocation p : r.getInputsList()) {
          String ranOn = ranOn(p.getPartition().getStageId(), p.getPartition().getTaskId());
          assertThat(p.getExecutorId()).isEqualTo(ranOn);
          assertThat(p.getHost()).isEqualTo(byId.get(ranOn).host());
          assertThat(p.getFlightPort()).isEqualTo(byId.get(ranOn).port());
          assertThat(p.getPartition().getJobId()).isEqualTo(id);
        }
      }
      assertThat(launchesOf(4).get(0).request().getInputsList())
          .extracting(p -> p.getPartition().getStageId(), p -> p.getPartition().getTaskId())
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(3, 0), org.assertj.core.groups.Tuple.tuple(3, 1));

      // The status stream: the current state first, a RUNNING phase, then SUCCEEDED last.
      assertThat(updates.get(0).getState())
          .isIn(JobState.JOB_STATE_QUEUED, JobState.JOB_STATE_RUNNING);
      assertThat(updates)
          .extracting(JobStatusUpdate::getState)
          .contains(JobState.JOB_STATE_RUNNING);
      assertThat(updates.size()).isGreaterThanOrEqualTo(2);
      // Progress never goes backwards along the stream.
      assertThat(updates)
          .extracting(
              u -> u.getStagesList().stream().mapToInt(StageStatus::getTasksSucceeded).sum())
          .isSorted();
      JobStatusUpdate done = updates.get(updates.size() - 1);
      assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
      assertThat(done.getJobId()).isEqualTo(id);
      assertThat(done.getStagesList())
          .extracting(
              StageStatus::getStageId, StageStatus::getTaskCount, StageStatus::getTasksSucceeded)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(1, 2, 2),
              org.assertj.core.groups.Tuple.tuple(2, 2, 2),
              org.assertj.core.groups.Tuple.tuple(3, 2, 2),
              org.assertj.core.groups.Tuple.tuple(4, 1, 1));
      for (StageStatus s : done.getStagesList()) {
        for (TaskSummary t : s.getTasksList()) {
          assertThat(t.getState()).isEqualTo(TaskState.TASK_STATE_SUCCEEDED);
          assertThat(t.getExecutorId()).isEqualTo(ranOn(s.getStageId(), t.getTask().getTaskId()));
          assertThat(t.getMetrics().getOutputRows()).isEqualTo(10L * (t.getTask().getTaskId() + 1));
        }
      }
      assertThat(done.getFinalOutputsList())
          .singleElement()
          .satisfies(
              p -> {
                assertThat(p.getPartition())
                    .isEqualTo(
                        ShufflePartitionId.newBuilder()
                            .setJobId(id)
                            .setStageId(4)
                            .setTaskId(0)
                            .setPartition(0)
                            .build());
                assertThat(p.getExecutorId()).isEqualTo(ranOn(4, 0));
              });
    } finally {
      pool.shutdownNow();
    }
  }

  private String ranOn(int stage, int task) {
    return launchesOf(stage).stream()
        .filter(l -> l.task().getTaskId() == task)
        .reduce((x, y) -> y)
        .orElseThrow()
        .executorId();
  }

  private static int firstIndex(List<FakeExecutor.Launch> all, Set<Integer> stages) {
    for (int i = 0; i < all.size(); i++) {
      if (stages.contains(all.get(i).task().getStageId())) {
        return i;
      }
    }
    return -1;
  }

  private static int lastIndex(List<FakeExecutor.Launch> all, Set<Integer> stages) {
    int last = -1;
    for (int i = 0; i < all.size(); i++) {
      if (stages.contains(all.get(i).task().getStageId())) {
        last = i;
      }
    }
    return last;
  }

  /**
   * A job that ran between two heartbeats still shows its peak memory: each finished task reports
   * its job's peak on its executor, and the job's peak in all is no less than any one of them.
   */
  @Test
  void aJobsPeakMemoryComesWithItsFinishedTasksWithoutHeartbeats() throws Exception {
    startScheduler();
    executor("exec-a", 1);
    executor("exec-b", 1);
    // The fakes' heartbeats carry no memory; task i reports a peak of 1000 * (i + 1) bytes.
    String id = submit(job(2, stage(1, 2, 1), stage(2, 1, 1, 1)));
    assertThat(await(id).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    JobViews.JobSummary job =
        server.jobs().jobs().stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
    assertThat(job.peakMemoryByExecutor()).containsOnlyKeys("exec-a", "exec-b");
    long max =
        job.peakMemoryByExecutor().values().stream().mapToLong(Long::longValue).max().orElse(0);
    assertThat(max).isEqualTo(2000);
    assertThat(job.peakMemoryBytes()).isEqualTo(max);
  }

  @Test
  void aConsumerPrefersTheExecutorHoldingItsInputWhenSlotsAreEven() throws Exception {
    startScheduler();
    executor("exec-a", 2);
    executor("exec-b", 2);
    // Round-robin alone would move each consumer to the other executor than its producer.
    for (int i = 0; i < 3; i++) {
      String id = submit(job(2, stage(1, 1, 1), stage(2, 1, 1, 1)));
      assertThat(await(id).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
      List<FakeExecutor.Launch> ofJob =
          launches().stream().filter(l -> l.task().getJobId().equals(id)).toList();
      String producer =
          ofJob.stream().filter(l -> l.task().getStageId() == 1).findFirst().get().executorId();
      String consumer =
          ofJob.stream().filter(l -> l.task().getStageId() == 2).findFirst().get().executorId();
      assertThat(consumer).as("job " + i).isEqualTo(producer);
    }
  }

  @Test
  void jobsFromSeveralClientsRunAtTheSameTime() throws Exception {
    startScheduler();
    FakeExecutor e = executor("exec-a", 8);
    // Hold every first-stage task until tasks of all three jobs are running at once.
    e.script =
        r ->
            r.getTask().getStageId() == 1
                ? FakeExecutor.Outcome.held()
                : FakeExecutor.Outcome.succeed();
    ExecutorService clients = Executors.newFixedThreadPool(3);
    try {
      List<Future<JobStatusUpdate>> results = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        SchedulerGrpc.SchedulerBlockingStub client = newStub();
        Callable<JobStatusUpdate> run =
            () -> {
              List<JobStatusUpdate> updates = follow(client, submit(client, twoStages()));
              return updates.get(updates.size() - 1);
            };
        results.add(clients.submit(run));
      }
      waitFor(() -> e.held.size() == 6);
      assertThat(e.held.keySet().stream().map(TaskId::getJobId).distinct()).hasSize(3);
      for (TaskId t : List.copyOf(e.held.keySet())) {
        e.complete(t, FakeExecutor.Outcome.succeed());
      }
      Set<String> ids = new java.util.HashSet<>();
      for (Future<JobStatusUpdate> f : results) {
        JobStatusUpdate done = f.get(30, TimeUnit.SECONDS);
        assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
        ids.add(done.getJobId());
      }
      assertThat(ids).hasSize(3);
    } finally {
      clients.shutdownNow();
    }
  }

  @Test
  void cancelStopsRunningTasksAndRemovesTheJobData() throws Exception {
    startScheduler();
    FakeExecutor e = executor("exec-a", 2);
    e.script = r -> FakeExecutor.Outcome.held();
    String id = submit(twoStages());
    waitFor(() -> e.held.size() == 2);

    // A report for an attempt the scheduler never launched is ignored.
    TaskId stale = e.held.keySet().iterator().next().toBuilder().setAttempt(5).build();
    e.report(stale, FakeExecutor.Outcome.succeed());
    assertThat(server.jobs().status(id).getState()).isEqualTo(JobState.JOB_STATE_RUNNING);
    assertThat(server.jobs().status(id).getStages(0).getTasksSucceeded()).isZero();

    assertThat(
            stub.cancelJob(
                    CancelJobRequest.newBuilder()
                        .setJobId(id)
                        .setJobCapability(capability(id))
                        .build())
                .getCancelled())
        .isTrue();
    JobStatusUpdate done = await(id);
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_CANCELLED);
    assertThat(done.getStages(0).getTasksList())
        .extracting(TaskSummary::getState)
        .containsOnly(TaskState.TASK_STATE_CANCELLED);
    waitFor(() -> !e.cancels.isEmpty() && !e.removedJobs.isEmpty());
    assertThat(e.cancels.get(0).getTasksList())
        .extracting(TaskId::getJobId, TaskId::getStageId)
        .containsOnly(org.assertj.core.groups.Tuple.tuple(id, 1));
    assertThat(e.cancels.get(0).getTasksCount()).isEqualTo(2);
    assertThat(e.held).isEmpty();
    assertThat(e.removedJobs).containsExactly(id);
    assertThat(
            stub.cancelJob(
                    CancelJobRequest.newBuilder()
                        .setJobId(id)
                        .setJobCapability(capability(id))
                        .build())
                .getCancelled())
        .isFalse();
  }

  @Test
  void outputOfATaskOfAnUnknownJobIsRemovedFromItsExecutor() throws Exception {
    startScheduler();
    FakeExecutor a = executor("exec-a", 1);
    FakeExecutor b = executor("exec-b", 1);
    // E.g. a rogue client launched it: nobody would ever read or remove its output.
    a.report(
        TaskId.newBuilder().setJobId("job-rogue").setStageId(1).build(),
        FakeExecutor.Outcome.succeed());
    waitFor(() -> a.removedJobs.contains("job-rogue"));
    assertThat(b.removedJobs).isEmpty();
  }

  @Test
  void releaseRemovesTheJobDataOnEveryExecutorThatRanIt() throws Exception {
    startScheduler();
    FakeExecutor a = executor("exec-a", 1);
    FakeExecutor b = executor("exec-b", 1);
    String id = submit(twoStages());
    assertThat(await(id).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(a.removedJobs).isEmpty();
    assertThat(b.removedJobs).isEmpty();

    stub.releaseJob(
        ReleaseJobRequest.newBuilder().setJobId(id).setJobCapability(capability(id)).build());
    waitFor(() -> a.removedJobs.contains(id) && b.removedJobs.contains(id));
    // Finished jobs stay available for status until the retention time has passed.
    assertThat(await(id).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
  }

  /** Forgotten exactly when the retention time has passed on the scheduler's clock. */
  @Test
  void finishedJobsAreForgottenAfterTheRetentionTime() throws Exception {
    Duration retention = Duration.ofMinutes(10);
    startScheduler(SchedulerConfig.defaults().withFinishedJobRetention(retention));
    executor("exec-a", 2);
    nanos.set(1_000);
    String id = submit(twoStages());
    assertThat(await(id).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    JobManager jobs = server.jobs();
    nanos.addAndGet(retention.toNanos() - 1);
    jobs.checkTimers();
    assertThat(jobs.status(id).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(executors.get(0).removedJobs).doesNotContain(id);

    nanos.addAndGet(1);
    jobs.checkTimers();
    assertThat(statusError(() -> jobs.status(id)).getStatus().getCode())
        .isEqualTo(Status.Code.NOT_FOUND);
    assertThat(jobs.job(id)).as("kept in the history").isPresent();
    // The client never released it: the executor is told to drop its data anyway.
    waitFor(() -> executors.get(0).removedJobs.contains(id));
  }

  /**
   * A stage whose consumer needs at most 25 rows runs in waves: one task first (10 rows), then as
   * many as the rows so far say will do (three more); tasks 4-7 never run, and every task that did
   * not finish before the stage had enough rows is cancelled or never run: it is reported skipped
   * and reaches the consumer as an empty input.
   */
  @Test
  void aStageWithARowLimitRunsInWavesAndSkipsTasksOnceItHasEnoughRows() throws Exception {
    startScheduler();
    executor("exec-a", 8);
    StageSpec limited = stage(1, 8, 1).toBuilder().setOutputRowLimit(25).build();
    JobStatusUpdate done = await(submit(job(2, limited, stage(2, 1, 1, 1))));
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    List<Integer> launched = launchesOf(1).stream().map(l -> l.task().getTaskId()).toList();
    assertThat(launched.get(0)).isZero();
    assertThat(launched).containsExactlyInAnyOrder(0, 1, 2, 3);
    StageStatus producers =
        done.getStagesList().stream().filter(s -> s.getStageId() == 1).findFirst().orElseThrow();
    List<Integer> skipped =
        producers.getTasksList().stream()
            .filter(TaskSummary::getSkipped)
            .map(t -> t.getTask().getTaskId())
            .toList();
    assertThat(skipped).contains(4, 5, 6, 7).doesNotContain(0);
    long rows =
        producers.getTasksList().stream()
            .filter(t -> !t.getSkipped())
            .mapToLong(t -> t.getMetrics().getOutputRows())
            .sum();
    assertThat(rows).isGreaterThanOrEqualTo(25);
    LaunchTaskRequest consumer = launchesOf(2).get(0).request();
    assertThat(consumer.getInputsList()).hasSize(8);
    assertThat(consumer.getInputsList())
        .filteredOn(PartitionLocation::getEmpty)
        .extracting(l -> l.getPartition().getTaskId())
        .containsExactlyInAnyOrderElementsOf(skipped);
    assertThat(consumer.getInputsList())
        .filteredOn(l -> !l.getEmpty())
        .allSatisfy(l -> assertThat(l.getExecutorId()).isEqualTo("exec-a"));
  }

  /**
   * A client that lost the answer to a submission sends it again with the same submission id and
   * gets the job already accepted, which runs once; another id is another job. Job ids carry 64
   * random bits.
   */
  @Test
  void aRepeatedSubmissionIdAnswersWithTheJobAlreadyAccepted() throws Exception {
    startScheduler();
    executor("exec-a", 2);
    SubmitJobRequest request =
        SubmitJobRequest.newBuilder()
            .setProtocolVersion(WireProtocol.VERSION)
            .setJob(twoStages())
            .setSubmissionId("5f0c2a3e-retry")
            .build();
    String first = remember(stub.submitJob(request));
    String again = remember(stub.submitJob(request));
    assertThat(again).isEqualTo(first).matches("job-\\d+-[0-9a-f]{16}");
    String other = remember(stub.submitJob(request.toBuilder().setSubmissionId("another").build()));
    assertThat(other).isNotEqualTo(first);
    assertThat(await(first).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(await(other).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(launchesOf(2).stream().map(l -> l.task().getJobId()))
        .containsExactlyInAnyOrder(first, other);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> stub.submitJob(request.toBuilder().setSubmissionId("x".repeat(129)).build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
  }

  @Test
  void deterministicFailureFailsTheJobAtOnceWithItsKind() throws Exception {
    startScheduler();
    FakeExecutor e = executor("exec-a", 2);
    e.script =
        r ->
            r.getTask().getTaskId() == 1
                ? FakeExecutor.Outcome.fail(
                    error("DataSourceException", "file /data/missing.parquet does not exist"))
                : FakeExecutor.Outcome.succeed();
    String id = submit(twoStages());
    JobStatusUpdate done = await(id);
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_FAILED);
    assertThat(done.getErrorInfo().getKind()).isEqualTo("DataSourceException");
    assertThat(done.getErrorInfo().getMessage())
        .contains("stage 1 task 1")
        .contains("exec-a")
        .contains("/data/missing.parquet");
    assertThat(done.getError()).isEqualTo(done.getErrorInfo().getMessage());
    assertThat(launchesOf(1)).hasSize(2);
    assertThat(launchesOf(2)).isEmpty();
    waitFor(() -> e.removedJobs.contains(id));
  }

  @Test
  void stolenSplitsAreHandedToRunningAttemptsAndReplayedByARetry() throws Exception {
    startScheduler();
    FakeExecutor a = executor("exec-a", 1);
    FakeExecutor b = executor("exec-b", 1);
    for (FakeExecutor e : executors) {
      e.script =
          r ->
              r.getTask().getStageId() == 1
                  ? FakeExecutor.Outcome.held()
                  : FakeExecutor.Outcome.succeed();
    }
    StageSpec scan =
        stage(1, 2, 1).toBuilder()
            .addScanSplits(
                ScanSplits.newBuilder()
                    .setScan(0)
                    .setSplitCount(4)
                    .addPlanned(SplitList.newBuilder().addSplits(0).addSplits(1))
                    .addPlanned(SplitList.newBuilder().addSplits(2).addSplits(3)))
            .build();
    String id = submit(job(2, scan, stage(2, 1, 1, 1)));
    waitFor(() -> launchesOf(1).size() == 2);
    FakeExecutor.Launch first = launchesOf(1).get(0);
    FakeExecutor.Launch second = launchesOf(1).get(1);
    assertThat(first.request().getSplitScansList()).containsExactly(0);
    TaskId t0 = first.task().getTaskId() == 0 ? first.task() : second.task();
    TaskId t1 = first.task().getTaskId() == 0 ? second.task() : first.task();
    String on0 = first.task().getTaskId() == 0 ? first.executorId() : second.executorId();
    String on1 = first.task().getTaskId() == 0 ? second.executorId() : first.executorId();

    NextSplitsResponse got = stub.nextSplits(splits(t0, on0, 0, 1));
    assertThat(got.getSplitsList()).containsExactly(0);
    // Task 1 reads its own, then (in a call of its own) takes task 0's split 1: every split is
    // handed out.
    got = stub.nextSplits(splits(t1, on1, 0, 10));
    assertThat(got.getSplitsList()).containsExactly(2, 3);
    assertThat(got.getLast()).isFalse();
    got = stub.nextSplits(splits(t1, on1, 2, 10));
    assertThat(got.getSplitsList()).containsExactly(1);
    assertThat(got.getLast()).isTrue();
    assertThat(statusError(() -> stub.nextSplits(splits(t1, on0, 0, 1))).getStatus().getCode())
        .as("an attempt asks from the executor it runs on")
        .isEqualTo(Status.Code.FAILED_PRECONDITION);
    (on1.equals("exec-a") ? a : b).complete(t1, FakeExecutor.Outcome.succeed());

    // Task 0's first attempt fails after reading split 0: its retry reads split 0 only.
    (on0.equals("exec-a") ? a : b)
        .complete(
            t0,
            FakeExecutor.Outcome.fail(
                error("QuiverException", "connection reset").toBuilder()
                    .setRetryable(true)
                    .build()));
    waitFor(() -> launchesOf(1).size() == 3);
    FakeExecutor.Launch retry = launchesOf(1).get(2);
    assertThat(retry.task().getAttempt()).isEqualTo(1);
    assertThat(statusError(() -> stub.nextSplits(splits(t0, on0, 0, 1))).getStatus().getCode())
        .as("the failed attempt gets no more splits")
        .isEqualTo(Status.Code.FAILED_PRECONDITION);
    got = stub.nextSplits(splits(retry.task(), retry.executorId(), 0, 5));
    assertThat(got.getSplitsList()).containsExactly(0);
    assertThat(got.getLast()).isTrue();
    (retry.executorId().equals("exec-a") ? a : b)
        .complete(retry.task(), FakeExecutor.Outcome.succeed());
    assertThat(await(id).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
  }

  private static NextSplitsRequest splits(TaskId task, String executor, int received, int want) {
    return NextSplitsRequest.newBuilder()
        .setTask(task)
        .setExecutorId(executor)
        .setScan(0)
        .setReceived(received)
        .setWant(want)
        .build();
  }

  @Test
  void transientFailureIsRetriedOnAnotherExecutor() throws Exception {
    startScheduler();
    executor("exec-a", 2);
    executor("exec-b", 2);
    for (FakeExecutor e : executors) {
      e.script =
          r ->
              r.getTask().getStageId() == 2 && r.getTask().getAttempt() == 0
                  ? FakeExecutor.Outcome.fail(
                      error("QuiverException", "connection reset").toBuilder()
                          .setRetryable(true)
                          .build())
                  : FakeExecutor.Outcome.succeed();
    }
    String id = submit(twoStages());
    JobStatusUpdate done = await(id);
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    List<FakeExecutor.Launch> finals = launchesOf(2);
    assertThat(finals).extracting(l -> l.task().getAttempt()).containsExactly(0, 1);
    assertThat(finals.get(1).executorId()).isNotEqualTo(finals.get(0).executorId());
    assertThat(done.getStages(1).getTasks(0).getTask().getAttempt()).isEqualTo(1);
    assertThat(done.getFinalOutputs(0).getExecutorId()).isEqualTo(finals.get(1).executorId());
  }

  @Test
  void anExecutorFailingTasksInARowGetsNoTasksForAWhile() throws Exception {
    startScheduler(
        SchedulerConfig.defaults()
            .withMaxTaskAttempts(5)
            .withExclusion(new Exclusion(2, Duration.ofMinutes(5))));
    FakeExecutor bad = executor("exec-a", 2);
    executor("exec-b", 1);
    bad.script =
        r ->
            FakeExecutor.Outcome.fail(
                error("QuiverException", "UNAVAILABLE: connection reset").toBuilder()
                    .setRetryable(true)
                    .build());
    // Stage 1's two tasks both go to exec-a first (most free slots) and fail there.
    JobStatusUpdate done = await(submit(job(2, stage(1, 2, 1), stage(2, 1, 1, 1))));
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    waitFor(
        () ->
            server.registry().list(false).stream()
                .anyMatch(
                    e ->
                        e.getInfo().getExecutorId().equals("exec-a")
                            && e.getExcludedUntilUnixMillis() > System.currentTimeMillis()));
    int before = launches().size();
    // While excluded, exec-a gets nothing even though it has more free slots.
    JobStatusUpdate next = await(submit(twoStages()));
    assertThat(next.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(launches().subList(before, launches().size()))
        .extracting(FakeExecutor.Launch::executorId)
        .containsOnly("exec-b");
    assertThat(server.registry().schedulable())
        .extracting(i -> i.getExecutorId())
        .containsExactly("exec-b");
  }

  @Test
  void exhaustedRetriesFailTheJobWithTheOriginalCause() throws Exception {
    startScheduler(SchedulerConfig.defaults().withMaxTaskAttempts(3));
    FakeExecutor e = executor("exec-a", 2);
    e.script =
        r ->
            r.getTask().getStageId() == 2
                ? FakeExecutor.Outcome.fail(
                    error("ResourcesExhaustedException", "memory pool of 64 MB exhausted")
                        .toBuilder()
                        .setRetryable(true)
                        .build())
                : FakeExecutor.Outcome.succeed();
    JobStatusUpdate done = await(submit(twoStages()));
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_FAILED);
    assertThat(done.getErrorInfo().getKind()).isEqualTo("ResourcesExhaustedException");
    assertThat(done.getErrorInfo().getMessage())
        .contains("after 3 attempts")
        .contains("memory pool of 64 MB exhausted");
    assertThat(launchesOf(2)).extracting(l -> l.task().getAttempt()).containsExactly(0, 1, 2);
  }

  @Test
  void lostExecutorsTasksAndOutputsRunAgainElsewhere() throws Exception {
    lostExecutorsTasksAndOutputsRunAgain();
  }

  /** Over TCP, where a killed executor is noticed by its broken connection. */
  @Test
  void lostExecutorsTasksAndOutputsRunAgainElsewhereOverTcp() throws Exception {
    transport = GrpcTransport.NETTY;
    lostExecutorsTasksAndOutputsRunAgain();
  }

  private void lostExecutorsTasksAndOutputsRunAgain() throws Exception {
    startScheduler();
    FakeExecutor small = executor("exec-a", 2);
    FakeExecutor big = executor("exec-b", 4);
    // exec-b has the most free slots, so it gets stage 1 and the final stage; it dies mid-way.
    big.script =
        r ->
            r.getTask().getStageId() == 2
                ? FakeExecutor.Outcome.held()
                : FakeExecutor.Outcome.succeed();
    String id = submit(twoStages());
    waitFor(() -> big.held.size() == 1);
    assertThat(launchesOf(1)).extracting(FakeExecutor.Launch::executorId).containsOnly("exec-b");
    big.kill();

    JobStatusUpdate done = await(id);
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    // Stage 1's outputs lived on the lost executor: both tasks ran again, then the final task.
    assertThat(small.launches)
        .extracting(l -> l.task().getStageId(), l -> l.task().getAttempt())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(1, 1),
            org.assertj.core.groups.Tuple.tuple(1, 1),
            org.assertj.core.groups.Tuple.tuple(2, 1));
    LaunchTaskRequest rerun =
        small.launches.stream()
            .filter(l -> l.task().getStageId() == 2)
            .findFirst()
            .orElseThrow()
            .request();
    assertThat(rerun.getInputsList())
        .extracting(PartitionLocation::getExecutorId)
        .containsOnly("exec-a");
    assertThat(done.getFinalOutputs(0).getExecutorId()).isEqualTo("exec-a");
  }

  @Test
  void consumerFetchFailureReRunsTheProducerFirst() throws Exception {
    startScheduler();
    FakeExecutor e = executor("exec-a", 2);
    JobSpec spec = job(2, stage(1, 1, 1), stage(2, 1, 1, 1));
    e.script =
        r -> {
          TaskId t = r.getTask();
          if (t.getStageId() == 2 && t.getAttempt() == 0) {
            // The message form ShuffleFetchException builds; no missing_partition field set.
            return FakeExecutor.Outcome.fail(
                error(
                    "ShuffleFetchException",
                    "Could not fetch job "
                        + t.getJobId()
                        + " stage 1 task 0 partition 0 on exec-a (127.0.0.1:1): NOT_FOUND"));
          }
          return FakeExecutor.Outcome.succeed();
        };
    JobStatusUpdate done = await(submit(spec));
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(launches())
        .extracting(l -> l.task().getStageId(), l -> l.task().getAttempt())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, 0),
            org.assertj.core.groups.Tuple.tuple(2, 0),
            org.assertj.core.groups.Tuple.tuple(1, 1),
            org.assertj.core.groups.Tuple.tuple(2, 1));
  }

  @Test
  void fetchFailureNamingThePartitionByFieldReRunsThatProducerTaskOnly() throws Exception {
    startScheduler();
    FakeExecutor e = executor("exec-a", 4);
    e.script =
        r -> {
          TaskId t = r.getTask();
          if (t.getStageId() == 2 && t.getAttempt() == 0) {
            return FakeExecutor.Outcome.fail(
                error("ShuffleFetchException", "gone").toBuilder()
                    .setMissingPartition(
                        ShufflePartitionId.newBuilder()
                            .setJobId(t.getJobId())
                            .setStageId(1)
                            .setTaskId(1)
                            .setPartition(0))
                    .build());
          }
          return FakeExecutor.Outcome.succeed();
        };
    JobStatusUpdate done = await(submit(twoStages()));
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(launchesOf(1))
        .extracting(l -> l.task().getTaskId(), l -> l.task().getAttempt())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(0, 0),
            org.assertj.core.groups.Tuple.tuple(1, 0),
            org.assertj.core.groups.Tuple.tuple(1, 1));
  }

  /** Fails exactly when the configured wait has passed on the scheduler's clock, naming it. */
  @Test
  void withoutExecutorsAJobFailsAfterTheConfiguredWait() throws Exception {
    Duration wait = Duration.ofMinutes(5);
    startScheduler(SchedulerConfig.defaults().withNoExecutorTimeout(wait));
    nanos.set(1_000);
    String id = submit(twoStages());
    JobManager jobs = server.jobs();
    nanos.addAndGet(wait.toNanos() - 1);
    jobs.checkTimers();
    assertThat(jobs.status(id).getState()).isEqualTo(JobState.JOB_STATE_QUEUED);

    nanos.addAndGet(1);
    jobs.checkTimers();
    JobStatusUpdate done = jobs.status(id);
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_FAILED);
    assertThat(done.getError())
        .contains("no executors are registered with the scheduler")
        .contains("waited 300000 ms");
    assertThat(await(id)).isEqualTo(done);
  }

  @Test
  void aJobWaitingForExecutorsRunsOnceOneRegisters() throws Exception {
    startScheduler();
    String id = submit(twoStages());
    assertThat(server.jobs().status(id).getState()).isEqualTo(JobState.JOB_STATE_QUEUED);
    executor("late", 1);
    assertThat(await(id).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(launches().stream().map(FakeExecutor.Launch::executorId).collect(Collectors.toSet()))
        .containsExactly("late");
  }

  @Test
  void launchToAnUnreachableExecutorMovesItsTasksElsewhere() throws Exception {
    startScheduler();
    FakeExecutor alive = executor("exec-a", 2);
    FakeExecutor gone = executor("exec-b", 4);
    // Still registered (its heartbeat timeout has not passed) but no longer listening.
    gone.kill();
    JobStatusUpdate done = await(submit(twoStages()));
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(gone.launches).isEmpty();
    assertThat(alive.launches).hasSize(3);
    assertThat(done.getStagesList())
        .flatExtracting(StageStatus::getTasksList)
        .extracting(TaskSummary::getExecutorId)
        .containsOnly("exec-a");
  }

  @Test
  void anExecutorThatRegistersAgainHasItsTasksRunAgain() throws Exception {
    startScheduler();
    FakeExecutor first = executor("exec-a", 2);
    first.script =
        r ->
            r.getTask().getStageId() == 2
                ? FakeExecutor.Outcome.held()
                : FakeExecutor.Outcome.succeed();
    String id = submit(twoStages());
    waitFor(() -> first.held.size() == 1);
    // The process restarts under the same id before any heartbeat timeout: its work is gone.
    first.kill();
    FakeExecutor second = executor("exec-a", 2);
    assertThat(await(id).getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(second.launches)
        .extracting(l -> l.task().getStageId(), l -> l.task().getAttempt())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(1, 1),
            org.assertj.core.groups.Tuple.tuple(1, 1),
            org.assertj.core.groups.Tuple.tuple(2, 1));
  }

  /**
   * An executor restarts under the same id while the broken connection of its former process is
   * still to be handled (the event is posted here as the channel's watcher posts it). Whichever the
   * job loop handles first, the new registration stays alive and runs the work: the broken
   * connection is the former process's, never the new one's. Before registration was one loop
   * event, Register put the new process in the registry on its RPC thread before the loop switched
   * channels, and a broken event handled in between marked the new process lost: the job hung.
   */
  @Test
  void aBrokenConnectionOfTheFormerProcessHandledBeforeItsNewRegistration() throws Exception {
    restartWhileTheFormerConnectionBreaks(true);
  }

  @Test
  void aBrokenConnectionOfTheFormerProcessHandledAfterItsNewRegistration() throws Exception {
    restartWhileTheFormerConnectionBreaks(false);
  }

  private void restartWhileTheFormerConnectionBreaks(boolean brokenFirst) throws Exception {
    startScheduler();
    FakeExecutor first = executor("exec-a", 2);
    first.script =
        r ->
            r.getTask().getStageId() == 2
                ? FakeExecutor.Outcome.held()
                : FakeExecutor.Outcome.succeed();
    String id = submit(twoStages());
    waitFor(() -> first.held.size() == 1);
    JobManager jobs = server.jobs();
    long formerChannel = jobs.channelGeneration("exec-a");
    assertThat(formerChannel).isPositive();
    FakeExecutor second = unregisteredExecutor("exec-a", 2);
    if (brokenFirst) {
      jobs.connectionBroken("exec-a", formerChannel);
      assertThat(jobs.register(second.info())).as("registered after being lost").isTrue();
    } else {
      assertThat(jobs.register(second.info())).as("registered while alive").isFalse();
      jobs.connectionBroken("exec-a", formerChannel);
    }
    JobStatusUpdate done =
        follow(stub.withDeadlineAfter(10, TimeUnit.SECONDS), id).stream()
            .reduce((a, b) -> b)
            .orElseThrow();
    assertThat(done.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    jobs.status(id); // the loop has handled every event posted before
    assertThat(server.registry().alive())
        .extracting(i -> i.getHost())
        .containsExactly(second.host());
    assertThat(second.launches)
        .extracting(l -> l.task().getStageId(), l -> l.task().getAttempt())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(1, 1),
            org.assertj.core.groups.Tuple.tuple(1, 1),
            org.assertj.core.groups.Tuple.tuple(2, 1));
  }

  // ------------------------------------------------------------------------------------------
  // Resource groups: admission and fair share
  // ------------------------------------------------------------------------------------------

  private static JobSpec inGroup(JobSpec spec, String group) {
    return spec.toBuilder().putSettings("quiver.resource_group", group).build();
  }

  /**
   * A scheduler with {@code groups} (user etl-bot selects the first) and one executor of 4 slots
   * that holds every task it gets.
   */
  private FakeExecutor startWithGroups(ResourceGroups.Group... groups) throws Exception {
    startScheduler(
        SchedulerConfig.builder()
            .resourceGroups(
                new ResourceGroups(
                    List.of(groups),
                    List.of(new ResourceGroups.Selector("etl-bot", groups[0].name())),
                    null))
            .build());
    FakeExecutor e = executor("exec-a", 4);
    e.script = r -> FakeExecutor.Outcome.held();
    return e;
  }

  private JobStatusUpdate status(String id) {
    return server.jobs().status(id);
  }

  @Test
  void aFullGroupQueuesJobsInOrderWithTheirPositionAndRefusesBeyondItsLimit() throws Exception {
    FakeExecutor e =
        startWithGroups(
            new ResourceGroups.Group("etl", 1, 2, 1, 0.5),
            new ResourceGroups.Group("adhoc", 4, 4, 1, 0.5));
    // The first job runs; the group runs at most one, so the next two wait, in order.
    String first = submit(inGroup(job(1, stage(1, 1, 1)), "etl"));
    waitFor(() -> e.held.size() == 1);
    String second = submit(inGroup(job(1, stage(1, 1, 1)), "etl"));
    // No session setting: the selector puts the user's job in etl.
    String third = submit(job(1, stage(1, 1, 1)).toBuilder().setUser("etl-bot").build());
    assertThat(status(second).getState()).isEqualTo(JobState.JOB_STATE_QUEUED);
    assertThat(status(second).getQueuePosition()).isEqualTo(1);
    assertThat(status(third).getQueuePosition()).isEqualTo(2);
    assertThat(status(third).getResourceGroup()).isEqualTo("etl");
    assertThat(status(third).getUser()).isEqualTo("etl-bot");
    assertThat(status(first).getQueuePosition()).isZero();
    assertThat(server.jobs().jobs())
        .filteredOn(j -> j.id().equals(third))
        .singleElement()
        .satisfies(
            j -> {
              assertThat(j.queuePosition()).isEqualTo(2);
              assertThat(j.resourceGroup()).isEqualTo("etl");
              assertThat(j.user()).isEqualTo("etl-bot");
            });
    // The queue is full: a fourth job is refused, naming the group and its limit.
    StatusRuntimeException full = statusError(() -> submit(inGroup(job(1, stage(1, 1, 1)), "etl")));
    assertThat(full.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(full.getStatus().getDescription())
        .contains("resource group 'etl'")
        .contains("maxQueued 2");
    // An unknown group is refused, listing the groups.
    StatusRuntimeException unknown =
        statusError(() -> submit(inGroup(job(1, stage(1, 1, 1)), "batch")));
    assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(unknown.getStatus().getDescription()).contains("'batch'").contains("[etl, adhoc]");
    // Another group is not held up by etl's queue.
    String adhoc = submit(inGroup(job(1, stage(1, 1, 1)), "adhoc"));
    waitFor(() -> e.held.size() == 2);
    assertThat(launches()).extracting(l -> l.task().getJobId()).containsExactly(first, adhoc);
    // The running etl job ends: the second is admitted and runs, the third moves up.
    e.complete(launches().get(0).task(), FakeExecutor.Outcome.succeed());
    waitFor(() -> launches().size() == 3);
    assertThat(launches().get(2).task().getJobId()).isEqualTo(second);
    assertThat(status(second).getQueuePosition()).isZero();
    assertThat(status(third).getQueuePosition()).isEqualTo(1);
    // A waiting job cancelled leaves the queue; nothing of it ever ran.
    stub.cancelJob(
        CancelJobRequest.newBuilder().setJobId(third).setJobCapability(capability(third)).build());
    assertThat(status(third).getState()).isEqualTo(JobState.JOB_STATE_CANCELLED);
    String fourth = submit(inGroup(job(1, stage(1, 1, 1)), "etl"));
    assertThat(status(fourth).getQueuePosition()).isEqualTo(1);
    e.complete(launches().get(2).task(), FakeExecutor.Outcome.succeed());
    waitFor(() -> launches().size() == 4);
    assertThat(launches()).extracting(l -> l.task().getJobId()).doesNotContain(third);
    assertThat(launches().get(3).task().getJobId()).isEqualTo(fourth);
  }

  @Test
  void freedSlotsGoToTheGroupFurthestBelowItsWeightedShareNotFirstComeFirstServed()
      throws Exception {
    FakeExecutor e =
        startWithGroups(
            new ResourceGroups.Group("etl", 4, 4, 1, 0.5),
            new ResourceGroups.Group("adhoc", 4, 4, 3, 0.5));
    String etl = submit(inGroup(job(1, stage(1, 8, 1)), "etl"));
    waitFor(() -> e.held.size() == 4);
    String adhoc = submit(inGroup(job(1, stage(1, 8, 1)), "adhoc"));
    assertThat(launches()).hasSize(4);
    // etl's tasks end one by one; each freed slot goes to the group with the lowest
    // (running + 1) / weight: adhoc three times (1/3, 2/3, 3/3 against etl's 4, 3, 2), then etl
    // (0 running: 1/1 against adhoc's 4/3). First come, first served would give etl all four.
    for (int i = 0; i < 4; i++) {
      FakeExecutor.Launch done =
          launches().stream().filter(l -> l.task().getJobId().equals(etl)).toList().get(i);
      e.complete(done.task(), FakeExecutor.Outcome.succeed());
      int expected = 5 + i;
      waitFor(() -> launches().size() == expected);
    }
    assertThat(launches().subList(4, 8))
        .extracting(l -> l.task().getJobId())
        .containsExactly(adhoc, adhoc, adhoc, etl);
  }
}
