package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.protobuf.ByteString;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.planner.PlanningContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.DistributedQueryExec;
import dev.quiver.distributed.client.JobHandle;
import dev.quiver.distributed.client.SchedulerClient;
import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.proto.RegisterRequest;
import dev.quiver.distributed.proto.RemoveJobDataRequest;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.security.AccessDeniedException;
import dev.quiver.distributed.security.GrpcSecurity;
import dev.quiver.distributed.security.JobCapabilities;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.distributed.wire.WireProtocol;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Isolation between clients that share the client token (issue 17 item 4), on a scheduler and two
 * executor processes started with --token-file (the clients' token) and --cluster-token-file (the
 * cluster credential): a client token cannot register as an executor, heartbeat, report tasks or
 * call an executor's control service; a client cannot watch, cancel, release or read the shuffle
 * output of a job another client submitted, though it knows the job's id; every refusal is a typed
 * error; and no token or job capability reaches a process log, an error or the metrics.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClientIsolationTest {
  private static final String CLIENT_TOKEN = "qv-client-token-7c1d9e04aa";
  private static final String CLUSTER_TOKEN = "qv-cluster-token-b83f22c6d1";
  private static final String GROUPS =
      "SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q FROM lineitem"
          + " GROUP BY l_returnflag, l_linestatus";

  @TempDir static Path tmp;

  private final BufferAllocator allocator = new RootAllocator();
  private final List<ByteString> capabilitiesSeen = new ArrayList<>();
  private final List<String> errorsSeen = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private Path tpch;
  private Path clientTokenFile;
  private Path clusterTokenFile;
  private ProcessCluster processes;
  private SecurityConfig client;
  private SecurityConfig operator;
  private ClusterFixture.ClusterRows alice;
  private ClusterFixture.ClusterRows bob;

  /** The schema of the jobs' output, as read with the owner's ticket. */
  private org.apache.arrow.vector.types.pojo.Schema schema;

  @BeforeAll
  void setUp() throws Exception {
    tpch = TpchFixture.data(ClusterTpchTestBase.SCALE);
    clientTokenFile = Files.writeString(tmp.resolve("client-token"), CLIENT_TOKEN + "\n");
    clusterTokenFile = Files.writeString(tmp.resolve("cluster-token"), CLUSTER_TOKEN + "\n");
    List<String> serverArgs =
        List.of(
            "--token-file", clientTokenFile.toString(),
            "--cluster-token-file", clusterTokenFile.toString());
    client = SecurityConfig.none().withTokenFile(clientTokenFile);
    operator = client.withClusterTokenFile(clusterTokenFile);
    processes =
        ProcessCluster.start(
            Files.createDirectories(tmp.resolve("cluster")),
            2,
            new ProcessCluster.Options(2, null, serverArgs, serverArgs, client).withHttp());
    ClusterConfig config = ClusterConfig.remote(processes.target()).withSecurity(client);
    alice = ClusterFixture.remote(config, tpch, new SessionConfig());
    bob = ClusterFixture.remote(config, tpch, new SessionConfig());
  }

  @AfterAll
  void tearDown() throws Exception {
    try {
      for (ClusterFixture.ClusterRows c : new ClusterFixture.ClusterRows[] {alice, bob}) {
        if (c != null) {
          c.rows().close();
        }
      }
    } finally {
      if (processes != null) {
        processes.close();
      }
      allocator.close();
    }
  }

  @Test
  @Order(1)
  @Timeout(240)
  void clientsWithTheClientTokenRunQueriesAcrossExecutors() throws Exception {
    try (RowEngine local = new QuiverRows(tpch, 2)) {
      for (TpchQuery q : TpchQueries.select(List.of(3, 12))) {
        QueryResult expected = local.query(q.sql());
        Differential.check(
            q.name() + " by a client of a cluster with a cluster credential",
            q.sql(),
            expected,
            alice.rows().query(q.sql()),
            Differential.sortOf(q.orderBy(), expected));
      }
    }
    assertThat(ClusterFixture.executorsOf(alice.jobs().get(alice.jobs().size() - 1)))
        .as(
            "executors that ran Q12's tasks (they read each other's shuffle with the cluster"
                + " credential)")
        .hasSize(2);
  }

  @Test
  @Order(2)
  @Timeout(120)
  void aClientTokenCannotJoinTheClusterNorCallAnExecutorsControlService() throws Exception {
    ExecutorInfo fake =
        ExecutorInfo.newBuilder()
            .setExecutorId("impostor")
            .setHost("127.0.0.1")
            .setFlightPort(9)
            .setCores(64)
            .build();
    ManagedChannel scheduler = channel(processes.target(), client);
    try {
      SchedulerGrpc.SchedulerBlockingStub stub =
          SchedulerGrpc.newBlockingStub(scheduler).withDeadlineAfter(30, TimeUnit.SECONDS);
      assertDenied(
          () ->
              stub.register(
                  RegisterRequest.newBuilder()
                      .setProtocolVersion(WireProtocol.VERSION)
                      .setExecutor(fake)
                      .build()),
          "Register");
      assertDenied(
          () -> stub.heartbeat(HeartbeatRequest.newBuilder().setExecutorId("exec-0").build()),
          "Heartbeat");
      assertDenied(
          () ->
              stub.reportTaskStatus(
                  TaskStatusReport.newBuilder()
                      .setTask(TaskId.newBuilder().setJobId("job-1-0").setStageId(1))
                      .setExecutorId("exec-0")
                      .build()),
          "ReportTaskStatus");
    } finally {
      scheduler.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    // The impostor never became an executor, and the scheduler still serves the real ones.
    try (SchedulerClient c = new SchedulerClient(operatorConfig())) {
      assertThat(c.executorsIncludingLost())
          .extracting(e -> e.getInfo().getExecutorId())
          .containsExactlyInAnyOrder("exec-0", "exec-1");
    }

    for (ExecutorInfo executor : executors()) {
      ManagedChannel channel = channel(executor.getHost() + ":" + executor.getFlightPort(), client);
      try {
        ExecutorControlGrpc.ExecutorControlBlockingStub control =
            ExecutorControlGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        assertDenied(
            () ->
                control.launchTask(
                    LaunchTaskRequest.newBuilder()
                        .setTask(TaskId.newBuilder().setJobId("job-x").setStageId(1))
                        .setPlan(ByteString.copyFromUtf8("plan"))
                        .setOutputPartitions(1)
                        .setJobCapability(JobCapabilities.newCapability())
                        .build()),
            "ExecutorControl");
        assertDenied(
            () -> control.removeJobData(RemoveJobDataRequest.newBuilder().setJobId("x").build()),
            "ExecutorControl");
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }

    // An executor process given only the clients' token is refused and says why.
    Path work = Files.createDirectories(tmp.resolve("impostor-work"));
    Process impostor =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Djava.io.tmpdir=" + Files.createDirectories(tmp.resolve("impostor-tmp")),
                "-jar",
                ProcessCluster.jar("executor", "quiver-executor.jar").toString(),
                "--scheduler",
                processes.target(),
                "--port",
                "0",
                "--id",
                "impostor",
                "--work-dir",
                work.toString(),
                "--token-file",
                clientTokenFile.toString())
            .redirectErrorStream(true)
            .start();
    CompletableFuture<String> output =
        CompletableFuture.supplyAsync(
            () -> {
              StringBuilder out = new StringBuilder();
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(impostor.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  out.append(line).append('\n');
                }
              } catch (java.io.IOException e) {
                out.append(e);
              }
              return out.toString();
            });
    try {
      assertThat(impostor.waitFor(90, TimeUnit.SECONDS)).as("the impostor executor exits").isTrue();
      String log = output.get(10, TimeUnit.SECONDS);
      assertThat(impostor.exitValue()).as(log).isNotZero();
      assertThat(log)
          .contains("PERMISSION_DENIED")
          .contains("--cluster-token-file")
          .doesNotContain(CLIENT_TOKEN)
          .doesNotContain(CLUSTER_TOKEN);
      errorsSeen.add(log);
    } finally {
      impostor.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * The executors' hosts, ports, memory and load are the operators': a client token's ListExecutors
   * shows each alive executor's task slots only, which a client plans with.
   */
  @Test
  @Order(2)
  @Timeout(60)
  void aClientTokenSeesOnlyTheExecutorsTaskSlots() {
    List<ExecutorStatus> full;
    try (SchedulerClient c = new SchedulerClient(operatorConfig())) {
      full = c.executorsIncludingLost();
    }
    assertThat(full)
        .extracting(e -> e.getInfo().getExecutorId())
        .containsExactlyInAnyOrder("exec-0", "exec-1");
    assertThat(full).allSatisfy(e -> assertThat(e.getInfo().getFlightPort()).isPositive());
    List<ExecutorStatus> seen;
    try (SchedulerClient c = new SchedulerClient(processes.clientConfig())) {
      seen = c.executorsIncludingLost();
    }
    assertThat(seen).hasSameSizeAs(full);
    for (ExecutorStatus e : seen) {
      assertThat(e.getInfo().getCores()).isEqualTo(2);
      assertThat(e.getState()).isEqualTo(ExecutorState.EXECUTOR_STATE_ALIVE);
      assertThat(e.getInfo().getExecutorId()).isEmpty();
      assertThat(e.getInfo().getHost()).isEmpty();
      assertThat(e.getInfo().getFlightPort()).isZero();
      assertThat(e.getInfo().getMemoryBytes()).isZero();
      assertThat(e.getAllocatedBytes()).isZero();
      assertThat(e.getLastSeenUnixMillis()).isZero();
    }
  }

  @Test
  @Order(3)
  @Timeout(180)
  void aClientCannotWatchCancelReleaseOrReadAnotherClientsJob() throws Exception {
    JobHandle alicesJob = submitAndAwait(alice);
    JobHandle bobsJob = submitAndAwait(bob);
    try {
      String id = alicesJob.jobId();
      ByteString alicesCapability = alicesJob.capability();
      capabilitiesSeen.add(alicesCapability);
      capabilitiesSeen.add(bobsJob.capability());
      assertThat(alicesCapability.size()).as("capability bytes (256 bits)").isEqualTo(32);
      assertThat(alicesCapability).isNotEqualTo(bobsJob.capability());
      List<ShuffleLocation> outputs = finalOutputs(alicesJob.lastStatus());
      assertThat(outputs).isNotEmpty();
      long rows = 0;
      for (ShuffleLocation o : outputs) {
        rows += doGet(o, o.ticket());
      }
      assertThat(rows).as("rows Alice reads with her capability").isEqualTo(4);

      // Bob knows Alice's job id (logs, the web UI) and shares her token, but not her capability.
      SchedulerClient bobs = bob.runtime().scheduler();
      for (ByteString wrong :
          List.of(ByteString.EMPTY, bobsJob.capability(), JobCapabilities.newCapability())) {
        assertTypedDenial(catchThrowable(() -> bobs.cancel(id, wrong)), id);
        assertTypedDenial(catchThrowable(() -> bobs.release(id, wrong)), id);
        CompletableFuture<Throwable> watched = new CompletableFuture<>();
        bobs.watch(
            id,
            wrong,
            new StreamObserver<>() {
              @Override
              public void onNext(JobStatusUpdate value) {
                watched.complete(new AssertionError("Bob saw a status of Alice's job"));
              }

              @Override
              public void onError(Throwable t) {
                watched.complete(t);
              }

              @Override
              public void onCompleted() {
                watched.complete(new AssertionError("Alice's job status stream ended for Bob"));
              }
            });
        Throwable watchError = watched.get(30, TimeUnit.SECONDS);
        assertThat(Status.fromThrowable(watchError).getCode())
            .as(String.valueOf(watchError))
            .isEqualTo(Status.Code.PERMISSION_DENIED);
        errorsSeen.add(String.valueOf(watchError));

        for (ShuffleLocation o : outputs) {
          FlightRuntimeException e =
              (FlightRuntimeException)
                  catchThrowable(() -> doGet(o, ShuffleTickets.encode(o.id(), wrong)));
          assertThat(e).isNotNull();
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHORIZED);
          assertThat(e.getMessage()).contains("capability").contains(id);
          errorsSeen.add(e.getMessage());
          // The engine's shuffle client turns the refusal into a typed error.
          assertTypedDenial(
              catchThrowable(() -> readWithShuffleClient(o.withCapability(wrong))), id);
        }
      }

      // Nothing Bob did touched Alice's job: its output is all still there for her.
      long again = 0;
      for (ShuffleLocation o : outputs) {
        again += doGet(o, o.ticket());
      }
      assertThat(again).isEqualTo(rows);
      assertThat(readWithShuffleClient(outputs.get(0))).isPositive();
    } finally {
      alicesJob.close();
      bobsJob.close();
    }
    // Alice's own release went through: her output is gone.
    ShuffleLocation o = finalOutputs(alicesJob.lastStatus()).get(0);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Throwable gone = catchThrowable(() -> doGet(o, o.ticket()));
      if (gone instanceof FlightRuntimeException f
          && f.status().code() == FlightStatusCode.NOT_FOUND) {
        break;
      }
      assertThat(System.nanoTime()).as("Alice's released output is deleted").isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  @Test
  @Order(4)
  @Timeout(60)
  void theHttpApiThatShowsEveryClientsJobsIsTheOperatorsAndShowsNoSecret() throws Exception {
    String base = processes.schedulerHttp();
    assertThat(get(base + "/api/jobs", null).statusCode()).isEqualTo(401);
    assertThat(get(base + "/api/jobs", CLIENT_TOKEN).statusCode()).isEqualTo(401);
    HttpResponse<String> jobs = get(base + "/api/jobs", CLUSTER_TOKEN);
    assertThat(jobs.statusCode()).isEqualTo(200);
    assertThat(jobs.body()).contains("job-");
    HttpResponse<String> metrics = get(base + "/metrics", CLUSTER_TOKEN);
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertNoSecretIn("the jobs API", jobs.body());
    assertNoSecretIn("the scheduler's metrics", metrics.body());
  }

  @Test
  @Order(5)
  @Timeout(60)
  void noTokenNorCapabilityReachesALogOrAnError() throws Exception {
    assertThat(capabilitiesSeen).isNotEmpty();
    assertThat(errorsSeen).isNotEmpty();
    for (String error : errorsSeen) {
      assertNoSecretIn("an error", error);
    }
    try (Stream<Path> logs = Files.list(processes.dir())) {
      List<Path> files = logs.filter(p -> p.toString().endsWith(".log")).toList();
      assertThat(files).hasSizeGreaterThanOrEqualTo(3);
      for (Path log : files) {
        String text = Files.readString(log);
        assertNoSecretIn(log.getFileName().toString(), text);
      }
    }
    // The scheduler logged the refusals (without the secrets).
    String schedulerLog = Files.readString(processes.dir().resolve("scheduler-0.log"));
    assertThat(schedulerLog).contains("did not carry the job's capability");
  }

  // ------------------------------------------------------------------------------------------

  private void assertNoSecretIn(String where, String text) {
    assertThat(text).as(where).doesNotContain(CLIENT_TOKEN).doesNotContain(CLUSTER_TOKEN);
    for (ByteString c : capabilitiesSeen) {
      byte[] b = c.toByteArray();
      assertThat(text)
          .as(where)
          .doesNotContainIgnoringCase(HexFormat.of().formatHex(b))
          .doesNotContain(Base64.getEncoder().encodeToString(b))
          .doesNotContain(Base64.getUrlEncoder().withoutPadding().encodeToString(b))
          .doesNotContain(com.google.protobuf.TextFormat.escapeBytes(c));
    }
  }

  private void assertDenied(Runnable call, String what) {
    Throwable e = catchThrowable(call::run);
    assertThat(e).as(what + " with a client token").isInstanceOf(StatusRuntimeException.class);
    Status status = ((StatusRuntimeException) e).getStatus();
    assertThat(status.getCode()).as(what + ": " + status).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(status.getDescription()).contains(what).contains("--cluster-token-file");
    errorsSeen.add(String.valueOf(status));
  }

  private void assertTypedDenial(Throwable e, String jobId) {
    assertThat(e).isInstanceOf(AccessDeniedException.class);
    assertThat(e.getMessage()).contains(jobId).contains("capability");
    errorsSeen.add(e.getMessage());
  }

  private static ManagedChannel channel(String target, SecurityConfig security) {
    int colon = target.lastIndexOf(':');
    return GrpcSecurity.channelBuilder(
            target.substring(0, colon), Integer.parseInt(target.substring(colon + 1)), security)
        .build();
  }

  private ClusterConfig operatorConfig() {
    return ClusterConfig.remote(processes.target()).withSecurity(operator);
  }

  private List<ExecutorInfo> executors() {
    try (SchedulerClient c = new SchedulerClient(operatorConfig())) {
      return c.executors().stream().map(s -> s.getInfo()).toList();
    }
  }

  /** Runs {@link #GROUPS} as a job of {@code who} and keeps its output (not released). */
  private JobHandle submitAndAwait(ClusterFixture.ClusterRows who) {
    SessionContext session = who.rows().session();
    SessionConfig config = session.config().copy();
    config.set("quiver.shuffle.compression", "none");
    PlanningContext planning =
        new PlanningContext() {
          @Override
          public SessionConfig config() {
            return config;
          }

          @Override
          public List<PhysicalOptimizerRule> physicalOptimizerRules() {
            return List.of();
          }
        };
    DataFrame frame = session.sql(GROUPS);
    ExecutionPlan plan = session.queryPlanner().createPhysicalPlan(frame.logicalPlan(), planning);
    assertThat(plan).isInstanceOf(DistributedQueryExec.class);
    DistributedQueryExec root = (DistributedQueryExec) plan;
    JobHandle job = JobHandle.submit(root.runtime().scheduler(), root.job());
    try {
      job.awaitSuccess(() -> false);
      return job;
    } catch (RuntimeException e) {
      job.close();
      throw e;
    }
  }

  private static List<ShuffleLocation> finalOutputs(JobStatusUpdate status) {
    List<ShuffleLocation> out = new ArrayList<>();
    for (PartitionLocation l : status.getFinalOutputsList()) {
      ShuffleLocation location = ShuffleLocation.fromProto(l);
      if (!location.empty()) {
        out.add(location);
      }
    }
    return out;
  }

  /** Reads one partition with a raw Flight client carrying the client token. */
  private long doGet(ShuffleLocation at, Ticket ticket) throws Exception {
    try (FlightClient flight =
            dev.quiver.distributed.security.FlightSecurity.connect(
                allocator, at.host(), at.port(), client);
        FlightStream stream = flight.getStream(ticket)) {
      long rows = 0;
      org.apache.arrow.vector.types.pojo.Schema read = stream.getSchema();
      if (schema == null) {
        schema = read;
      }
      while (stream.next()) {
        rows += stream.getRoot().getRowCount();
      }
      return rows;
    }
  }

  /** Reads one partition as a consumer task does, with the engine's shuffle client. */
  private long readWithShuffleClient(ShuffleLocation at) throws Exception {
    java.util.concurrent.ExecutorService threads =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    try (BufferAllocator task = allocator.newChildAllocator("task", 0, Long.MAX_VALUE);
        dev.quiver.distributed.shuffle.FlightShuffleClient shuffle =
            dev.quiver.distributed.shuffle.FlightShuffleClient.create(allocator, client)) {
      dev.quiver.binding.physical.TaskContext ctx =
          new dev.quiver.binding.physical.TaskContext(
              "q",
              task,
              new dev.quiver.binding.physical.MemoryPool(1 << 20),
              new SessionConfig(),
              threads);
      long rows = 0;
      try (dev.quiver.binding.physical.BatchStream stream = shuffle.open(at, schema, ctx)) {
        org.apache.arrow.vector.VectorSchemaRoot next;
        while ((next = stream.next()) != null) {
          rows += next.getRowCount();
          next.close();
        }
      }
      return rows;
    } finally {
      threads.shutdownNow();
    }
  }

  private HttpResponse<String> get(String url, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}
