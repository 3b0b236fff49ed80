package dev.quiver.scheduler.job;

import static dev.quiver.scheduler.job.JobFixtures.executor;
import static dev.quiver.scheduler.job.JobFixtures.running;
import static dev.quiver.scheduler.job.JobFixtures.stage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.NextSplitsRequest;
import dev.quiver.distributed.proto.NextSplitsResponse;
import dev.quiver.distributed.proto.ScanSplits;
import dev.quiver.distributed.proto.SplitList;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.scheduler.time.SchedulerClock;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Handing scan splits out at run time, as a plain function: who gets which split, and that a retry,
 * a speculative copy or a re-run reads exactly what its task was given.
 */
@Timeout(10)
class SplitQueueTest {

  /** Splits 0..n-1 planned in contiguous runs of the given sizes, one run per task. */
  private static SplitQueue queue(int... sizes) {
    List<List<Integer>> planned = new ArrayList<>();
    int next = 0;
    for (int size : sizes) {
      planned.add(IntStream.range(next, next + size).boxed().toList());
      next += size;
    }
    return new SplitQueue(planned);
  }

  /** Reads task {@code task}'s splits from {@code received} to the end, {@code want} at a time. */
  private static List<Integer> readToEnd(SplitQueue q, int task, int received, int want) {
    List<Integer> out = new ArrayList<>();
    while (true) {
      SplitQueue.Answer a = q.next(task, received + out.size(), want);
      out.addAll(a.splits());
      if (a.last()) {
        return out;
      }
      assertThat(a.splits()).as("an answer that is not the last holds a split").isNotEmpty();
    }
  }

  @Test
  void tasksOfEqualSpeedReadWhatWasPlannedForThemInOrder() {
    SplitQueue q = queue(3, 3);
    // Alternating, one split at a time: nobody runs out before the others, nothing is stolen.
    List<List<Integer>> read = List.of(new ArrayList<>(), new ArrayList<>());
    for (int round = 0; round < 3; round++) {
      for (int t = 0; t < 2; t++) {
        SplitQueue.Answer a = q.next(t, read.get(t).size(), 1);
        read.get(t).addAll(a.splits());
        assertThat(a.last()).isEqualTo(round == 2 && t == 1);
      }
    }
    assertThat(read).isEqualTo(List.of(List.of(0, 1, 2), List.of(3, 4, 5)));
    SplitQueue.Answer end = q.next(0, 3, 1);
    assertThat(end.splits()).isEmpty();
    assertThat(end.last()).isTrue();
  }

  @Test
  void aTaskOutOfPlannedSplitsStealsFromTheEndOfTheLongestList() {
    SplitQueue q = queue(2, 4, 6);
    assertThat(q.next(2, 0, 1).splits()).containsExactly(6);
    assertThat(q.next(1, 0, 1).splits()).containsExactly(2);
    // Task 0 reads its own two; asking for more does not steal with them.
    assertThat(q.next(0, 0, 3).splits()).containsExactly(0, 1);
    // Then it steals, in calls of their own, at most half of the longest list left: two of task
    // 2's five, then one of task 1's three (tasks 1 and 2 have three left each).
    assertThat(q.next(0, 2, 2).splits()).containsExactly(11, 10);
    assertThat(q.next(0, 4, 2).splits()).containsExactly(5);
    // The owners still read their own from the front, in order.
    assertThat(q.next(1, 1, 1).splits()).containsExactly(3);
    assertThat(q.next(2, 1, 10).splits()).containsExactly(7, 8, 9);
    assertThat(q.next(2, 4, 10).splits()).containsExactly(4);
    assertThat(q.remaining()).isZero();
    assertThat(q.next(1, 2, 1)).isEqualTo(new SplitQueue.Answer(List.of(), true));
    assertThat(q.given(0)).containsExactly(0, 1, 11, 10, 5);
    assertThat(q.given(1)).containsExactly(2, 3);
    assertThat(q.given(2)).containsExactly(6, 7, 8, 9, 4);
  }

  @Test
  void aFastTaskAskingForManyLeavesATaskThatHasNotStartedHalfItsSplits() {
    SplitQueue q = queue(3, 8);
    assertThat(q.next(0, 0, 64).splits()).as("its own only").containsExactly(0, 1, 2);
    assertThat(q.next(0, 3, 64).splits()).as("half of task 1's eight").containsExactly(10, 9, 8, 7);
    assertThat(q.next(1, 0, 64).splits()).containsExactly(3, 4, 5, 6);
    assertThat(q.next(0, 7, 64)).isEqualTo(new SplitQueue.Answer(List.of(), true));
  }

  @Test
  void aRetryReplaysItsTasksSplitsThenTakesNewOnes() {
    SplitQueue q = queue(3, 3);
    assertThat(q.next(0, 0, 2).splits()).containsExactly(0, 1);
    // Attempt 0 of task 0 fails having received 0 and 1; meanwhile task 1 reads all its own.
    assertThat(readToEnd(q, 1, 0, 1)).containsExactly(3, 4, 5, 2);
    // Split 2 went to task 1: attempt 1 of task 0 reads exactly what task 0 was given.
    assertThat(readToEnd(q, 0, 0, 1)).containsExactly(0, 1);
    assertThat(q.given(0)).containsExactly(0, 1);
  }

  @Test
  void aSpeculativeCopyAndItsOriginalReadTheSameSplits() {
    SplitQueue q = queue(4, 4);
    List<Integer> original = new ArrayList<>(q.next(0, 0, 2).splits());
    List<Integer> copy = new ArrayList<>();
    // The copy starts from the beginning and catches up; whichever reaches the end of the list
    // takes the next split, and the other reads it from the list.
    copy.addAll(q.next(0, 0, 3).splits());
    assertThat(copy).containsExactly(0, 1, 2);
    original.addAll(q.next(0, original.size(), 2).splits());
    assertThat(original).containsExactly(0, 1, 2, 3);
    // Task 1 empties the queue meanwhile (it steals nothing: task 0 has none left to take).
    assertThat(readToEnd(q, 1, 0, 4)).containsExactly(4, 5, 6, 7);
    copy.addAll(readToEnd(q, 0, copy.size(), 1));
    original.addAll(readToEnd(q, 0, original.size(), 1));
    assertThat(copy).isEqualTo(original).isEqualTo(q.given(0));
  }

  @Test
  void aRerunAfterLostOutputReadsTheFrozenList() {
    SplitQueue q = queue(2, 2);
    List<Integer> first = readToEnd(q, 0, 0, 1);
    readToEnd(q, 1, 0, 1);
    // Task 0's output is lost after the stage finished: its re-run reads the same splits.
    assertThat(readToEnd(q, 0, 0, 2)).isEqualTo(first).isEqualTo(q.given(0));
  }

  @Test
  void anAttemptCannotClaimMoreThanItsTaskWasGiven() {
    SplitQueue q = queue(2, 2);
    q.next(0, 0, 1);
    assertThatThrownBy(() -> q.next(0, 2, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was given 1 splits");
  }

  @Test
  void everySplitIsReadByExactlyOneSuccessfulAttemptUnderRandomFailuresAndCopies() {
    for (int seed = 0; seed < 200; seed++) {
      Random random = new Random(seed);
      int tasks = 1 + random.nextInt(5);
      int[] sizes = new int[tasks];
      int total = 0;
      for (int t = 0; t < tasks; t++) {
        sizes[t] = random.nextInt(6);
        total += sizes[t];
      }
      SplitQueue q = queue(sizes);
      // Running attempts per task: what each has read; a task is done once an attempt read "last".
      Map<Integer, List<List<Integer>>> attempts = new HashMap<>();
      Map<Integer, List<Integer>> winners = new HashMap<>();
      for (int t = 0; t < tasks; t++) {
        attempts.put(t, new ArrayList<>(List.of(new ArrayList<>())));
      }
      while (winners.size() < tasks) {
        int t = random.nextInt(tasks);
        if (winners.containsKey(t)) {
          continue;
        }
        List<List<Integer>> running = attempts.get(t);
        int roll = random.nextInt(10);
        if (roll == 0) {
          running.remove(0); // an attempt fails or its executor is lost
          if (running.isEmpty()) {
            running.add(new ArrayList<>()); // the retry
          }
          continue;
        }
        if (roll == 1 && running.size() == 1) {
          running.add(new ArrayList<>()); // a speculative copy
          continue;
        }
        List<Integer> attempt = running.get(random.nextInt(running.size()));
        SplitQueue.Answer a = q.next(t, attempt.size(), 1 + random.nextInt(3));
        attempt.addAll(a.splits());
        if (a.last()) {
          winners.put(t, attempt);
        }
      }
      Set<Integer> read = new HashSet<>();
      int count = 0;
      for (int t = 0; t < tasks; t++) {
        assertThat(winners.get(t)).as("seed %d task %d", seed, t).isEqualTo(q.given(t));
        read.addAll(winners.get(t));
        count += winners.get(t).size();
      }
      assertThat(count).as("seed %d: no split read twice", seed).isEqualTo(read.size());
      assertThat(read).as("seed %d: every split read", seed).hasSize(total);
    }
  }

  @Test
  void onlyARunningAttemptGetsSplits() {
    StageSpec spec =
        stage(1, 2).toBuilder()
            .addScanSplits(
                ScanSplits.newBuilder()
                    .setScan(0)
                    .setSplitCount(3)
                    .addPlanned(SplitList.newBuilder().addSplits(0).addSplits(1))
                    .addPlanned(SplitList.newBuilder().addSplits(2)))
            .build();
    JobRegistry jobs = new JobRegistry(SchedulerClock.of(() -> 0, () -> 0));
    Job job = jobs.add(JobSpec.newBuilder().addStages(spec).setFinalStageId(1).build(), "");
    ExecutorInfo a = executor("a", 2);
    TaskRun task = job.stages.get(1).tasks.get(0);
    assertThat(ExecutorCalls.launchRequest(task, 0).getSplitScansList()).containsExactly(0);

    NextSplitsRequest.Builder request =
        NextSplitsRequest.newBuilder().setTask(task.id(0)).setExecutorId("a").setWant(1);
    assertThat(status(() -> SplitHandouts.answer(jobs, request.build())))
        .isEqualTo(Status.Code.FAILED_PRECONDITION);
    running(task, a, 0);
    NextSplitsResponse first = SplitHandouts.answer(jobs, request.build());
    assertThat(first.getSplitsList()).containsExactly(0);
    assertThat(first.getLast()).isFalse();
    assertThat(status(() -> SplitHandouts.answer(jobs, request.setExecutorId("b").build())))
        .as("the attempt runs elsewhere")
        .isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(
            status(() -> SplitHandouts.answer(jobs, request.setExecutorId("a").setScan(1).build())))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status(() -> SplitHandouts.answer(jobs, request.setScan(0).setReceived(5).build())))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void aJobWhosePlannedSplitsDoNotCoverTheScanOnceIsRefused() {
    StageSpec good =
        stage(1, 2).toBuilder()
            .addScanSplits(
                ScanSplits.newBuilder()
                    .setScan(0)
                    .setSplitCount(2)
                    .addPlanned(SplitList.newBuilder().addSplits(1))
                    .addPlanned(SplitList.newBuilder().addSplits(0)))
            .build();
    JobSpecValidator.validate(JobSpec.newBuilder().addStages(good).setFinalStageId(1).build());
    for (ScanSplits bad :
        List.of(
            good.getScanSplits(0).toBuilder().setSplitCount(3).build(),
            good.getScanSplits(0).toBuilder()
                .setPlanned(1, SplitList.newBuilder().addSplits(1))
                .build(),
            good.getScanSplits(0).toBuilder().removePlanned(1).build(),
            good.getScanSplits(0).toBuilder()
                .setPlanned(1, SplitList.newBuilder().addSplits(7))
                .build())) {
      JobSpec job =
          JobSpec.newBuilder()
              .addStages(good.toBuilder().setScanSplits(0, bad))
              .setFinalStageId(1)
              .build();
      assertThat(status(() -> JobSpecValidator.validate(job)))
          .as("%s", bad)
          .isEqualTo(Status.Code.INVALID_ARGUMENT);
    }
  }

  private static Status.Code status(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
    return Status.Code.OK;
  }
}
