package dev.quiver.scheduler.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.RuntimeFilterSpec;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import org.junit.jupiter.api.Test;

/**
 * A scan stage runs its runtime filter's plan only when the input whose keys filter it wrote at
 * most the filter's byte limit, and its planned plan otherwise or when the sizes are unknown.
 */
class RuntimeFilterChoiceTest {
  private static final ExecutorInfo E = JobFixtures.executor("e", 2);
  private static final ByteString FILTERED = ByteString.copyFromUtf8("filtered plan");

  /** Stage 1 (two tasks) computes keys; stage 2 scans, filtered by them; stage 3 joins both. */
  private static Job job(long maxBytes) {
    StageSpec scan =
        JobFixtures.stage(2, 2, 1).toBuilder()
            .setRuntimeFilter(
                RuntimeFilterSpec.newBuilder()
                    .setInputStageId(1)
                    .setPlan(FILTERED)
                    .setPlanText("SemiJoin over the scan")
                    .setMaxBytes(maxBytes))
            .build();
    return JobFixtures.job(1, JobFixtures.stage(1, 2), scan, JobFixtures.stage(3, 1, 1, 2));
  }

  private static void wrote(TaskRun task, long bytes, long rows) {
    JobFixtures.succeeded(task, E, rows, 1);
    task.summarize(
        TaskState.TASK_STATE_SUCCEEDED,
        TaskMetrics.newBuilder()
            .setOutputRows(rows)
            .addPartitionBytes(bytes)
            .addPartitionRows(rows)
            .build());
  }

  @Test
  void smallKeysInputSelectsTheFilteredPlan() {
    Job job = job(1000);
    StageRun keys = job.stages.get(1);
    StageRun scan = job.stages.get(2);
    assertThat(scan.filterable()).as("waits for its keys").isFalse();
    wrote(keys.tasks.get(0), 300, 10);
    wrote(keys.tasks.get(1), 400, 12);
    assertThat(scan.filterable()).isTrue();
    assertThat(RuntimeFilterChoice.apply(scan))
        .isEqualTo("rows filtered by the join keys of stage 1 (22 rows, 700 bytes)");
    assertThat(scan.plan).isEqualTo(FILTERED);
    assertThat(scan.planText())
        .as("the jobs API shows the plan run")
        .isEqualTo("SemiJoin over the scan");
  }

  @Test
  void keysInputOverTheLimitLeavesThePlannedPlan() {
    Job job = job(500);
    StageRun scan = job.stages.get(2);
    wrote(job.stages.get(1).tasks.get(0), 300, 10);
    wrote(job.stages.get(1).tasks.get(1), 400, 12);
    assertThat(RuntimeFilterChoice.apply(scan))
        .isEqualTo("runtime filter from stage 1 not used: it wrote 700 bytes, over 500");
    assertThat(scan.plan).isEqualTo(scan.spec.getPlan());
    assertThat(scan.planText()).isEqualTo(scan.spec.getPlanText());
  }

  @Test
  void unknownSizesLeaveThePlannedPlan() {
    Job job = job(1000);
    StageRun scan = job.stages.get(2);
    for (TaskRun t : job.stages.get(1).tasks) {
      JobFixtures.succeeded(t, E, 5, 1);
    }
    assertThat(RuntimeFilterChoice.apply(scan)).contains("not used: its output sizes are unknown");
    assertThat(scan.plan).isEqualTo(scan.spec.getPlan());
  }
}
