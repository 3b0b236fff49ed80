package dev.quiver.scheduler.job;

import static dev.quiver.scheduler.job.JobFixtures.executor;
import static dev.quiver.scheduler.job.JobFixtures.job;
import static dev.quiver.scheduler.job.JobFixtures.limitedStage;
import static dev.quiver.scheduler.job.JobFixtures.running;
import static dev.quiver.scheduler.job.JobFixtures.stage;
import static dev.quiver.scheduler.job.JobFixtures.succeeded;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.proto.ExecutorInfo;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which tasks are ready and in which order, as a plain function: no server, no loop. */
@Timeout(10)
class ReadyTasksTest {

  private static final ExecutorInfo A = executor("a", 2);

  private static List<TaskRun> tasks(Job job, int stage, int... indexes) {
    List<TaskRun> out = new ArrayList<>();
    for (int i : indexes) {
      out.add(job.stages.get(stage).tasks.get(i));
    }
    return out;
  }

  /** The phases of every task, to check that finding the ready tasks changes nothing. */
  private static List<String> phases(Job job) {
    List<String> out = new ArrayList<>();
    for (StageRun s : job.stages.values()) {
      for (TaskRun t : s.tasks) {
        out.add(s.id() + "/" + t.index + ":" + t.phase + (t.skipped ? " skipped" : ""));
      }
    }
    return out;
  }

  private static ReadyTasks.Ready ready(Job job) {
    List<String> before = phases(job);
    ReadyTasks.Ready ready = ReadyTasks.of(job);
    assertThat(phases(job)).as("finding the ready tasks changes no task").isEqualTo(before);
    return ready;
  }

  @Test
  void aStageIsReadyOnlyOnceEveryInputStageIsComplete() {
    Job job = job(1, stage(1, 2), stage(2, 1, 1), stage(3, 1, 2));
    assertThat(ready(job).tasks()).isEqualTo(tasks(job, 1, 0, 1));

    succeeded(job.stages.get(1).tasks.get(0), A, 5, 1);
    assertThat(ready(job).tasks()).isEqualTo(tasks(job, 1, 1));

    running(job.stages.get(1).tasks.get(1), A, 0);
    assertThat(ready(job).tasks()).as("a running task is not ready again").isEmpty();

    succeeded(job.stages.get(1).tasks.get(1), A, 5, 1);
    assertThat(ready(job).tasks()).isEqualTo(tasks(job, 2, 0));

    succeeded(job.stages.get(2).tasks.get(0), A, 5, 1);
    assertThat(ready(job).tasks()).isEqualTo(tasks(job, 3, 0));
    assertThat(ready(job).rowLimitsMet()).isEmpty();
  }

  @Test
  void producersComeBeforeConsumersInTheInputOrderAndSharedStagesOnce() {
    // 4 reads 2 and 3, which both read 1; 5 has no inputs and is read by 3 after 1.
    Job job =
        job(1, stage(1, 2), stage(5, 1), stage(2, 1, 1), stage(3, 2, 1, 5), stage(4, 1, 2, 3));
    assertThat(ready(job).tasks()).isEqualTo(concat(tasks(job, 1, 0, 1), tasks(job, 5, 0)));

    succeeded(job.stages.get(1).tasks.get(0), A, 1, 1);
    succeeded(job.stages.get(1).tasks.get(1), A, 1, 1);
    assertThat(ready(job).tasks()).isEqualTo(concat(tasks(job, 2, 0), tasks(job, 5, 0)));

    succeeded(job.stages.get(5).tasks.get(0), A, 1, 1);
    assertThat(ready(job).tasks()).isEqualTo(concat(tasks(job, 2, 0), tasks(job, 3, 0, 1)));
  }

  @Test
  void aProducerToRunAgainHoldsBackItsConsumers() {
    Job job = job(1, stage(1, 2), stage(2, 2, 1));
    succeeded(job.stages.get(1).tasks.get(0), A, 1, 1);
    succeeded(job.stages.get(1).tasks.get(1), A, 1, 1);
    assertThat(ready(job).tasks()).isEqualTo(tasks(job, 2, 0, 1));

    // Its output was lost: the producer waits to run again, and the consumers wait for it.
    job.stages.get(1).tasks.get(1).phase = TaskRun.Phase.WAITING;
    assertThat(ready(job).tasks()).isEqualTo(tasks(job, 1, 1));
  }

  @Test
  void aStageUnderARowLimitRunsInWavesOfGrowingSize() {
    Job job = job(1, limitedStage(1, 10, 100), stage(2, 1, 1));
    assertThat(ready(job).tasks()).as("one task first").isEqualTo(tasks(job, 1, 0));

    running(job.stages.get(1).tasks.get(0), A, 0);
    assertThat(ready(job).tasks()).as("the running wave decides the next").isEmpty();

    // 1 task wrote 10 of 100 rows: the next wave is min(4 x 1, ceil(1.5 x 100 / 10) - 1) = 4.
    succeeded(job.stages.get(1).tasks.get(0), A, 10, 1);
    assertThat(ready(job).tasks()).isEqualTo(tasks(job, 1, 1, 2, 3, 4));
    assertThat(ready(job).rowLimitsMet()).isEmpty();

    // A task of the wave still runs: no more start, even when others are waiting.
    succeeded(job.stages.get(1).tasks.get(1), A, 0, 1);
    running(job.stages.get(1).tasks.get(2), A, 0);
    assertThat(ready(job).tasks()).isEmpty();
  }

  @Test
  void aMetRowLimitSkipsTheRestAndReadiesTheConsumersAtOnce() {
    Job job = job(1, limitedStage(1, 4, 100), stage(2, 1, 1));
    succeeded(job.stages.get(1).tasks.get(0), A, 60, 1);
    succeeded(job.stages.get(1).tasks.get(1), A, 40, 1);
    running(job.stages.get(1).tasks.get(2), A, 0);

    ReadyTasks.Ready ready = ready(job);
    assertThat(ready.rowLimitsMet()).containsExactly(job.stages.get(1));
    // Its consumer need not wait for the tasks that are to be skipped.
    assertThat(ready.tasks()).isEqualTo(tasks(job, 2, 0));
  }

  @Test
  void aRowLimitCountsOnlyTheRowsOfTasksThatRan() {
    Job job = job(1, limitedStage(1, 4, 100), stage(2, 1, 1));
    succeeded(job.stages.get(1).tasks.get(0), A, 99, 1);
    // A skipped task did not run: it adds no rows, and the next wave is sized on 1 task that ran.
    job.stages.get(1).tasks.get(3).skip();
    ReadyTasks.Ready ready = ready(job);
    assertThat(ready.rowLimitsMet()).isEmpty();
    // ran 1, 99 rows: ceil(1.5 x 100 x 1 / 99) - 1 = 1 more task (2 if the skip counted).
    assertThat(ready.tasks()).isEqualTo(tasks(job, 1, 1));
  }

  @Test
  void aCompleteJobHasNothingReady() {
    Job job = job(1, stage(1, 1), stage(2, 1, 1));
    succeeded(job.stages.get(1).tasks.get(0), A, 1, 1);
    succeeded(job.stages.get(2).tasks.get(0), A, 1, 1);
    assertThat(ready(job).tasks()).isEmpty();
    assertThat(ready(job).rowLimitsMet()).isEmpty();
  }

  private static List<TaskRun> concat(List<TaskRun> a, List<TaskRun> b) {
    List<TaskRun> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
