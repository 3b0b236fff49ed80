package dev.quiver.scheduler.job;

import static dev.quiver.scheduler.job.JobFixtures.executor;
import static dev.quiver.scheduler.job.JobFixtures.job;
import static dev.quiver.scheduler.job.JobFixtures.running;
import static dev.quiver.scheduler.job.JobFixtures.stage;
import static dev.quiver.scheduler.job.JobFixtures.succeeded;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.scheduler.config.Speculation;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which running tasks get a speculative copy, as a plain function: no server, no loop. */
@Timeout(10)
class StragglersTest {

  private static final ExecutorInfo A = executor("a", 4);
  private static final long SECOND = 1_000_000_000L;

  /** A copy after 1.5 x the median once 3 of 4 tasks succeeded, after at least 1 s. */
  private static final Speculation POLICY = new Speculation(true, 1.5, 0.75, Duration.ofSeconds(1));

  /** A job of one 4-task stage: tasks 0 to 2 succeeded after 1, 2 and 4 s; task 3 runs from 0. */
  private static Job slowLastTask(long seq) {
    Job job = job(seq, stage(1, 4));
    List<TaskRun> tasks = job.stages.get(1).tasks;
    succeeded(tasks.get(0), A, 1, SECOND);
    succeeded(tasks.get(1), A, 1, 2 * SECOND);
    succeeded(tasks.get(2), A, 1, 4 * SECOND);
    running(tasks.get(3), A, 0);
    return job;
  }

  @Test
  void aTaskRunningLongerThanTheMultipleOfTheMedianIsAStraggler() {
    Job job = slowLastTask(1);
    TaskRun last = job.stages.get(1).tasks.get(3);
    // The median of 1, 2 and 4 s is 2 s: the threshold is 3 s, and exactly 3 s is not over it.
    assertThat(Stragglers.find(List.of(job), POLICY, 3 * SECOND)).isEmpty();
    assertThat(Stragglers.find(List.of(job), POLICY, 3 * SECOND + 1))
        .containsExactly(new Stragglers.Straggler(last, last.running.get(0), 3 * SECOND));
  }

  @Test
  void theMinimumRuntimeHoldsWhenTheMedianIsShort() {
    Job job = slowLastTask(1);
    Speculation slowToSpeculate = POLICY.withMinRuntime(Duration.ofSeconds(10));
    assertThat(Stragglers.find(List.of(job), slowToSpeculate, 10 * SECOND)).isEmpty();
    assertThat(Stragglers.find(List.of(job), slowToSpeculate, 10 * SECOND + 1))
        .extracting(Stragglers.Straggler::thresholdNanos)
        .containsExactly(10 * SECOND);
  }

  @Test
  void tooFewFinishedTasksTellNothing() {
    Job job = job(1, stage(1, 4));
    List<TaskRun> tasks = job.stages.get(1).tasks;
    succeeded(tasks.get(0), A, 1, SECOND);
    succeeded(tasks.get(1), A, 1, SECOND);
    running(tasks.get(2), A, 0);
    running(tasks.get(3), A, 0);
    // 2 of 4 succeeded, 3 must (a quantile of 0.75).
    assertThat(Stragglers.find(List.of(job), POLICY, 100 * SECOND)).isEmpty();
    assertThat(Stragglers.find(List.of(job), POLICY.withQuantile(0.5), 100 * SECOND))
        .extracting(Stragglers.Straggler::task)
        .containsExactly(tasks.get(2), tasks.get(3));
  }

  @Test
  void aTaskAlreadyRacingACopyGetsNoOther() {
    Job job = slowLastTask(1);
    TaskRun last = job.stages.get(1).tasks.get(3);
    last.running.add(new TaskRun.Attempt(1, executor("b", 4), 0, SECOND, true));
    assertThat(Stragglers.find(List.of(job), POLICY, 100 * SECOND)).isEmpty();
  }

  @Test
  void finishedJobsAndAPolicyThatIsOffGiveNone() {
    Job job = slowLastTask(1);
    assertThat(Stragglers.find(List.of(job), Speculation.off(), 100 * SECOND)).isEmpty();
    job.state = JobState.JOB_STATE_CANCELLED;
    assertThat(Stragglers.find(List.of(job), POLICY, 100 * SECOND)).isEmpty();
  }

  @Test
  void stragglersComeInTheJobsOrder() {
    Job first = slowLastTask(1);
    Job second = slowLastTask(2);
    assertThat(Stragglers.find(List.of(second, first), POLICY, 100 * SECOND))
        .extracting(s -> s.task().stage.job)
        .containsExactly(second, first);
  }

  @Test
  void aStageOfOneTaskHasNoMedianToCompareWith() {
    Job job = job(1, stage(1, 1));
    running(job.stages.get(1).tasks.get(0), A, 0);
    assertThat(Stragglers.find(List.of(job), POLICY, 100 * SECOND)).isEmpty();
  }
}
