package dev.quiver.scheduler.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.scheduler.time.SchedulerClock;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Task placement and row-limit waves as plain functions: no server, no executors, no loop. */
@Timeout(10)
class PlacementTest {

  private static ExecutorInfo executor(String id, int cores) {
    return ExecutorInfo.newBuilder()
        .setExecutorId(id)
        .setHost("127.0.0.1")
        .setFlightPort(1)
        .setCores(cores)
        .build();
  }

  private static final ExecutorInfo A = executor("a", 2);
  private static final ExecutorInfo B = executor("b", 2);
  private static final ExecutorInfo C = executor("c", 4);

  private static Map<String, Integer> free(Object... idAndSlots) {
    Map<String, Integer> free = new HashMap<>();
    for (int i = 0; i < idAndSlots.length; i += 2) {
      free.put((String) idAndSlots[i], (Integer) idAndSlots[i + 1]);
    }
    return free;
  }

  private static ExecutorInfo choose(
      List<ExecutorInfo> usable,
      Map<String, Integer> free,
      Set<String> failedOn,
      Map<String, Long> held,
      String busy,
      String lastPicked) {
    Map<String, Integer> before = new HashMap<>(free);
    ExecutorInfo pick = Placement.choose(usable, free, failedOn, held, busy, lastPicked);
    assertThat(free).as("choose leaves the free slots to its caller").isEqualTo(before);
    return pick;
  }

  @Test
  void usableLeavesOutUnreachableExecutors() {
    assertThat(Placement.usable(List.of(A, B, C), Set.of("b"))).containsExactly(A, C);
    assertThat(Placement.usable(List.of(A, B), Set.of())).containsExactly(A, B);
  }

  @Test
  void freeSlotsAreCoresLessRunningAttempts() {
    Map<String, Set<String>> running = Map.of("a", Set.of("t1", "t2"), "c", Set.of("t3"));
    assertThat(Placement.freeSlots(List.of(A, B, C), running))
        .isEqualTo(free("a", 0, "b", 2, "c", 3));
    assertThat(Placement.hasFreeSlot(free("a", 0, "b", 0))).isFalse();
    assertThat(Placement.hasFreeSlot(free("a", 0, "b", 1))).isTrue();
    assertThat(Placement.hasFreeSlot(free())).isFalse();
  }

  @Test
  void mostFreeSlotsWinsOverInputBytes() {
    Map<String, Long> held = Map.of("a", 1000L);
    ExecutorInfo pick =
        choose(List.of(A, B, C), free("a", 2, "b", 2, "c", 3), Set.of(), held, null, "");
    assertThat(pick).isEqualTo(C);
  }

  @Test
  void amongTiedExecutorsTheOneHoldingMostInputWins() {
    ExecutorInfo pick =
        choose(
            List.of(A, B, C),
            free("a", 2, "b", 2, "c", 2),
            Set.of(),
            Map.of("a", 10L, "b", 500L, "c", 20L),
            null,
            "");
    assertThat(pick).isEqualTo(B);
  }

  @Test
  void fullTiesGoRoundRobinByIdAfterTheLastPick() {
    List<ExecutorInfo> usable = List.of(A, B, C);
    Map<String, Integer> free = free("a", 1, "b", 1, "c", 1);
    assertThat(choose(usable, free, Set.of(), Map.of(), null, "")).isEqualTo(A);
    assertThat(choose(usable, free, Set.of(), Map.of(), null, "a")).isEqualTo(B);
    assertThat(choose(usable, free, Set.of(), Map.of(), null, "b")).isEqualTo(C);
    // After the last id it wraps around to the first.
    assertThat(choose(usable, free, Set.of(), Map.of(), null, "c")).isEqualTo(A);
  }

  @Test
  void executorsWithoutFreeSlotsAreNeverChosen() {
    assertThat(choose(List.of(A, B), free("a", 0, "b", 0), Set.of(), Map.of(), null, "")).isNull();
    assertThat(choose(List.of(A, B), free("a", 0, "b", 1), Set.of(), Map.of("a", 99L), null, ""))
        .isEqualTo(B);
    assertThat(choose(List.of(), free(), Set.of(), Map.of(), null, "")).isNull();
  }

  @Test
  void aRetryAvoidsExecutorsWhereTheTaskFailedWhileOthersExist() {
    // b is the only executor it has not failed on: it goes there even with fewer free slots.
    assertThat(choose(List.of(A, B), free("a", 2, "b", 1), Set.of("a"), Map.of(), null, ""))
        .isEqualTo(B);
    // b has no free slot now: the task waits for one rather than going back to a.
    assertThat(choose(List.of(A, B), free("a", 2, "b", 0), Set.of("a"), Map.of(), null, ""))
        .isNull();
    // It failed everywhere: any executor will do again.
    assertThat(choose(List.of(A, B), free("a", 2, "b", 1), Set.of("a", "b"), Map.of(), null, ""))
        .isEqualTo(A);
  }

  @Test
  void aSpeculativeCopyNeverGoesWhereTheTaskAlreadyRuns() {
    assertThat(choose(List.of(A, B), free("a", 2, "b", 1), Set.of(), Map.of(), "a", ""))
        .isEqualTo(B);
    assertThat(choose(List.of(A), free("a", 2), Set.of(), Map.of(), "a", "")).isNull();
    // The executor the task runs on is no candidate even when it failed on every other one: the
    // copy goes to b, where an earlier attempt failed.
    assertThat(choose(List.of(A, B), free("a", 2, "b", 1), Set.of("b"), Map.of(), "a", ""))
        .isEqualTo(B);
  }

  private static StageSpec stage(int id, int tasks, Integer... inputs) {
    return StageSpec.newBuilder()
        .setStageId(id)
        .setTaskCount(tasks)
        .setOutputPartitions(1)
        .addAllInputStageIds(List.of(inputs))
        .setPlan(ByteString.copyFromUtf8("plan " + id))
        .build();
  }

  private static void succeeded(TaskRun task, ExecutorInfo on, long outputBytes) {
    task.phase = TaskRun.Phase.SUCCEEDED;
    task.executor = on;
    task.summarize(
        TaskState.TASK_STATE_SUCCEEDED,
        TaskMetrics.newBuilder().setOutputBytes(outputBytes).build());
  }

  @Test
  void inputBytesCountSucceededProducersOfEveryInputStageByExecutor() {
    JobSpec spec =
        JobSpec.newBuilder()
            .setFinalStageId(3)
            .addStages(stage(1, 3))
            .addStages(stage(2, 2))
            .addStages(stage(3, 2, 1, 2))
            .build();
    Job job =
        new Job(
            "job-1-00", 1, spec, "", ByteString.copyFromUtf8("capability"), SchedulerClock.SYSTEM);
    List<TaskRun> one = job.stages.get(1).tasks;
    List<TaskRun> two = job.stages.get(2).tasks;
    succeeded(one.get(0), A, 100);
    succeeded(one.get(1), B, 40);
    succeeded(one.get(2), A, 5);
    succeeded(two.get(0), B, 7);
    // Still running (its summary exists but it has not succeeded): counts nothing.
    two.get(1).executor = C;
    two.get(1).phase = TaskRun.Phase.RUNNING;
    two.get(1)
        .summarize(
            TaskState.TASK_STATE_RUNNING, TaskMetrics.newBuilder().setOutputBytes(9).build());

    TaskRun consumer = job.stages.get(3).tasks.get(1);
    assertThat(Placement.inputBytesByExecutor(consumer)).isEqualTo(Map.of("a", 105L, "b", 47L));

    // A skipped producer wrote nothing and lives nowhere.
    one.get(2).skip();
    assertThat(Placement.inputBytesByExecutor(consumer)).isEqualTo(Map.of("a", 100L, "b", 47L));

    // A stage without inputs holds nothing anywhere.
    assertThat(Placement.inputBytesByExecutor(one.get(0))).isEmpty();
  }

  @Test
  void inputBytesSteerTheChoiceAmongEquallyFreeExecutors() {
    JobSpec spec =
        JobSpec.newBuilder()
            .setFinalStageId(2)
            .addStages(stage(1, 2))
            .addStages(stage(2, 1, 1))
            .build();
    Job job =
        new Job(
            "job-2-00", 2, spec, "", ByteString.copyFromUtf8("capability"), SchedulerClock.SYSTEM);
    succeeded(job.stages.get(1).tasks.get(0), A, 10);
    succeeded(job.stages.get(1).tasks.get(1), C, 900);
    TaskRun consumer = job.stages.get(2).tasks.get(0);
    ExecutorInfo pick =
        choose(
            List.of(A, B, C),
            free("a", 2, "b", 2, "c", 2),
            consumer.failedOn,
            Placement.inputBytesByExecutor(consumer),
            null,
            "");
    assertThat(pick).isEqualTo(C);
  }

  @Test
  void rowLimitWavesStartWithOneTaskAndGrowAtMostFourfold() {
    assertThat(Placement.nextWave(100, 0, 0)).isEqualTo(1);
    // A wave that wrote nothing: four times as many as ran.
    assertThat(Placement.nextWave(100, 1, 0)).isEqualTo(4);
    assertThat(Placement.nextWave(100, 5, 0)).isEqualTo(20);
    // 1 task wrote 10 of 100 rows: ceil(1.5 * 100 * 1 / 10) - 1 = 14, capped at 4 x 1.
    assertThat(Placement.nextWave(100, 1, 10)).isEqualTo(4);
    // 4 tasks wrote 80 of 100 rows: ceil(1.5 * 100 * 4 / 80) - 4 = 4.
    assertThat(Placement.nextWave(100, 4, 80)).isEqualTo(4);
    // 10 tasks wrote 99 of 100 rows: ceil(1.5 * 100 * 10 / 99) - 10 = 6.
    assertThat(Placement.nextWave(100, 10, 99)).isEqualTo(6);
    // Enough rows by the estimate: still at least one more task.
    assertThat(Placement.nextWave(100, 10, 1000)).isEqualTo(1);
  }

  @Test
  void placingEveryReadyTaskSpreadsThemOverFreeSlots() {
    // What the job loop does with choose: take the slot, remember the pick, place the next task.
    List<ExecutorInfo> usable = List.of(A, B);
    Map<String, Integer> free = Placement.freeSlots(usable, Map.of());
    String last = "";
    List<String> picks = new java.util.ArrayList<>();
    Set<String> none = new LinkedHashSet<>();
    while (Placement.hasFreeSlot(free)) {
      ExecutorInfo pick = Placement.choose(usable, free, none, Map.of(), null, last);
      last = pick.getExecutorId();
      free.merge(last, -1, Integer::sum);
      picks.add(last);
    }
    assertThat(picks).containsExactly("a", "b", "a", "b");
    assertThat(Placement.choose(usable, free, none, Map.of(), null, last)).isNull();
  }
}
