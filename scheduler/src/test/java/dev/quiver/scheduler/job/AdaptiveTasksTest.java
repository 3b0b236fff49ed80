package dev.quiver.scheduler.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.proto.AdaptiveSpec;
import dev.quiver.distributed.proto.InputSlice;
import dev.quiver.scheduler.job.AdaptiveTasks.InputSizes;
import dev.quiver.scheduler.job.AdaptiveTasks.Reshape;
import dev.quiver.scheduler.job.AdaptiveTasks.TaskInput;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The tasks adaptive execution gives a stage, from its inputs' sizes per producer and partition.
 */
class AdaptiveTasksTest {
  private static final long MB = 1 << 20;

  private static AdaptiveSpec.Builder spec(List<Integer> aligned, List<Integer> splittable) {
    return AdaptiveSpec.newBuilder()
        .addAllAlignedInputs(aligned)
        .addAllSplittableInputs(splittable)
        .setMinPartitionBytes(MB)
        .setSkewFactor(4)
        .setSkewMinBytes(8 * MB)
        .setBroadcastBytes(MB);
  }

  /** An input of {@code bytes[task][partition]} bytes, ten bytes a row. */
  private static InputSizes input(int stageId, long[][] bytes) {
    long[][] rows = new long[bytes.length][];
    for (int t = 0; t < bytes.length; t++) {
      rows[t] = new long[bytes[t].length];
      for (int p = 0; p < bytes[t].length; p++) {
        rows[t][p] = bytes[t][p] / 10;
      }
    }
    return new InputSizes(stageId, bytes, rows);
  }

  /** {@code tasks} producer tasks each writing {@code perPartition[p]} to partition p. */
  private static long[][] even(int tasks, long... perPartition) {
    long[][] out = new long[tasks][];
    for (int t = 0; t < tasks; t++) {
      out[t] = perPartition.clone();
    }
    return out;
  }

  /**
   * Every (partition, producer task) pair read by {@code tasks} of {@code stageId}, as p*1000+t.
   */
  private static List<Integer> reads(List<TaskInput> tasks, int stageId, int producerTasks) {
    List<Integer> out = new ArrayList<>();
    for (TaskInput t : tasks) {
      InputSlice s = t.slices().get(stageId);
      int fp = s == null ? t.planPartition() : s.getFirstPartition();
      int ep = s == null ? t.planPartition() + 1 : s.getEndPartition();
      int ft = s == null ? 0 : s.getFirstTask();
      int et = s == null ? producerTasks : s.getEndTask();
      for (int p = fp; p < ep; p++) {
        for (int k = ft; k < et; k++) {
          out.add(p * 1000 + k);
        }
      }
    }
    return out;
  }

  private static List<Integer> all(int partitions, int producerTasks) {
    List<Integer> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      for (int k = 0; k < producerTasks; k++) {
        out.add(p * 1000 + k);
      }
    }
    return out;
  }

  @Test
  void evenPartitionsRunAsPlanned() {
    InputSizes a = input(1, even(2, 4 * MB, 4 * MB, 4 * MB, 4 * MB));
    assertThat(AdaptiveTasks.plan(spec(List.of(1), List.of()).build(), 4, List.of(a))).isEmpty();
  }

  @Test
  void tinyPartitionsAreCoalescedAndEveryPartitionReadOnce() {
    InputSizes a = input(1, even(3, 1000, 2000, 1000, 500, 800, 300, 100, 50));
    InputSizes b = input(2, even(2, 10, 20, 30, 40, 50, 60, 70, 80));
    Reshape r =
        AdaptiveTasks.plan(spec(List.of(1, 2), List.of()).build(), 8, List.of(a, b)).orElseThrow();
    assertThat(r.tasks()).hasSize(1);
    assertThat(reads(r.tasks(), 1, 3)).containsExactlyInAnyOrderElementsOf(all(8, 3));
    assertThat(reads(r.tasks(), 2, 2)).containsExactlyInAnyOrderElementsOf(all(8, 2));
    assertThat(r.note()).contains("coalesced").contains("8 tasks planned, 1 run");
  }

  @Test
  void coalescingKeepsTheStagesParallelismForLargeInputs() {
    // 4 partitions of 3, 3, 0.1 and 0.1 MB: the target is max(1 MB, 6.2 MB / 4) = 1.55 MB.
    InputSizes a = input(1, even(1, 3 * MB, 3 * MB, MB / 10, MB / 10));
    Reshape r =
        AdaptiveTasks.plan(spec(List.of(1), List.of()).build(), 4, List.of(a)).orElseThrow();
    assertThat(r.tasks()).hasSize(3);
    assertThat(reads(r.tasks(), 1, 1)).containsExactlyInAnyOrderElementsOf(all(4, 1));
  }

  @Test
  void skewedPartitionOfASplittableInputIsSplitByProducerTasks() {
    long[][] big = even(4, 2 * MB, 40 * MB, 2 * MB, 2 * MB);
    InputSizes a = input(1, big);
    InputSizes b = input(2, even(2, MB, MB, MB, MB));
    Reshape r =
        AdaptiveTasks.plan(spec(List.of(1, 2), List.of(1)).build(), 4, List.of(a, b)).orElseThrow();
    List<TaskInput> onSkewed = r.tasks().stream().filter(t -> t.planPartition() == 1).toList();
    assertThat(onSkewed).hasSize(4);
    // Each piece reads its producers' share of partition 1 of stage 1 and all of stage 2's.
    assertThat(reads(onSkewed, 1, 4))
        .containsExactlyInAnyOrderElementsOf(List.of(1000, 1001, 1002, 1003));
    for (TaskInput t : onSkewed) {
      assertThat(t.slices()).containsOnlyKeys(1);
    }
    assertThat(reads(r.tasks(), 1, 4)).containsExactlyInAnyOrderElementsOf(all(4, 4));
    assertThat(reads(r.tasks(), 2, 2)).hasSize(2 * 4 + 3 * 2); // partition 1 once per piece
    assertThat(r.note()).contains("skewed partition 1 of stage 1");
  }

  @Test
  void skewOfAnInputThatIsNotSplittableIsLeftAlone() {
    InputSizes a = input(1, even(4, 2 * MB, 40 * MB, 2 * MB, 2 * MB));
    Optional<Reshape> r =
        AdaptiveTasks.plan(
            spec(List.of(1), List.of()).setMinPartitionBytes(0).build(), 4, List.of(a));
    assertThat(r).isEmpty();
  }

  @Test
  void smallSideMakesABroadcastJoinReadingTheLargeSideOneProducerTaskATask() {
    InputSizes large = input(1, even(3, 10 * MB, 10 * MB, 10 * MB, 10 * MB));
    InputSizes small = input(2, even(2, 100, 100, 100, 100));
    Reshape r =
        AdaptiveTasks.plan(spec(List.of(1, 2), List.of(1, 2)).build(), 4, List.of(large, small))
            .orElseThrow();
    assertThat(r.tasks()).hasSize(3);
    for (int t = 0; t < 3; t++) {
      InputSlice l = r.tasks().get(t).slices().get(1);
      assertThat(List.of(l.getFirstTask(), l.getEndTask())).containsExactly(t, t + 1);
      assertThat(List.of(l.getFirstPartition(), l.getEndPartition())).containsExactly(0, 4);
      InputSlice s = r.tasks().get(t).slices().get(2);
      assertThat(List.of(s.getFirstTask(), s.getEndTask())).containsExactly(0, 2);
    }
    assertThat(reads(r.tasks(), 1, 3)).containsExactlyInAnyOrderElementsOf(all(4, 3));
    assertThat(r.note()).startsWith("broadcast join at run time: stage 2");
  }

  @Test
  void noBroadcastWhenTheLargeSideIsNotSplittable() {
    InputSizes large = input(1, even(3, 10 * MB, 10 * MB, 10 * MB, 10 * MB));
    InputSizes small = input(2, even(2, 100, 100, 100, 100));
    Optional<Reshape> r =
        AdaptiveTasks.plan(spec(List.of(1, 2), List.of(2)).build(), 4, List.of(large, small));
    assertThat(r).isEmpty();
  }

  @Test
  void producerRunsCoverEveryTaskOnceInOrder() {
    InputSizes a = input(1, new long[][] {{5}, {0}, {50}, {1}, {30}, {2}});
    List<int[]> runs = AdaptiveTasks.producerRuns(a, 0, 20);
    int next = 0;
    for (int[] run : runs) {
      assertThat(run[0]).isEqualTo(next);
      assertThat(run[1]).isGreaterThan(run[0]);
      next = run[1];
    }
    assertThat(next).isEqualTo(6);
    assertThat(runs.size()).isBetween(2, 5);
  }
}
