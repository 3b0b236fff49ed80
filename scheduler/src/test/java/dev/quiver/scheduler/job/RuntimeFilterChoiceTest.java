package dev.quiver.scheduler.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.quiver.binding.physical.join.BloomFilter;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.KeyFilterBits;
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
  private static final ByteString BLOOM = ByteString.copyFromUtf8("bloom plan");

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

  /** As {@link #job}, with a Bloom plan for up to {@code bloomRows} key rows. */
  private static Job bloomJob(long maxBytes, long bloomRows) {
    Job job = job(maxBytes);
    StageRun scan = job.stages.get(2);
    StageSpec spec =
        scan.spec.toBuilder()
            .setRuntimeFilter(
                scan.spec.getRuntimeFilter().toBuilder()
                    .setBloomPlan(BLOOM)
                    .setBloomPlanText("BloomFilterExec over the scan")
                    .setBloomMaxRows(bloomRows))
            .build();
    return JobFixtures.job(1, job.stages.get(1).spec, spec, job.stages.get(3).spec);
  }

  private static void wrote(TaskRun task, long bytes, long rows) {
    wrote(task, bytes, rows, null);
  }

  /** The task wrote {@code rows} whose keys {@code filter} (for stage 2) holds, if not null. */
  private static void wrote(TaskRun task, long bytes, long rows, BloomFilter filter) {
    JobFixtures.succeeded(task, E, rows, 1);
    TaskMetrics.Builder m =
        TaskMetrics.newBuilder()
            .setOutputRows(rows)
            .addPartitionBytes(bytes)
            .addPartitionRows(rows);
    if (filter != null) {
      m.addKeyFilters(
          KeyFilterBits.newBuilder().setFilterId(2).setBits(ByteString.copyFrom(filter.toBytes())));
    }
    task.summarize(TaskState.TASK_STATE_SUCCEEDED, m.build());
  }

  private static BloomFilter filterOf(int first, int n, long bits) {
    BloomFilter f = BloomFilter.withBits(bits);
    for (int k = first; k < first + n; k++) {
      f.insert(k);
    }
    return f;
  }

  @Test
  void keysOverTheByteLimitButFewRowsSelectTheBloomPlanWithTheTasksFiltersMerged() {
    Job job = bloomJob(500, 1000);
    StageRun scan = job.stages.get(2);
    // Tasks fold their filters to their own rows: the scheduler merges at the smaller size.
    wrote(job.stages.get(1).tasks.get(0), 300, 10, filterOf(0, 10, 1 << 12));
    wrote(job.stages.get(1).tasks.get(1), 400, 12, filterOf(100, 12, 1 << 11));
    assertThat(RuntimeFilterChoice.apply(scan))
        .isEqualTo(
            "rows filtered by a Bloom filter of the join keys of stage 1 (22 rows, 2048 bits, 8%"
                + " set)");
    assertThat(scan.plan).isEqualTo(BLOOM);
    assertThat(scan.planText()).isEqualTo("BloomFilterExec over the scan");
    assertThat(scan.keyFilter.getFilterId()).isEqualTo(2);
    BloomFilter merged = BloomFilter.fromBytes(scan.keyFilter.getBits().toByteArray());
    assertThat(merged.bits()).isEqualTo(2048);
    for (int k = 0; k < 10; k++) {
      assertThat(merged.mightContain(k)).isTrue();
    }
    for (int k = 100; k < 112; k++) {
      assertThat(merged.mightContain(k)).isTrue();
    }
    assertThat(ExecutorCalls.launchRequest(scan.tasks.get(0), 0).getKeyFilter())
        .as("its tasks get the filter")
        .isEqualTo(scan.keyFilter);
  }

  @Test
  void aTaskThatWroteNoRowsAddsNothingToTheMergedFilter() {
    Job job = bloomJob(500, 1000);
    StageRun scan = job.stages.get(2);
    wrote(job.stages.get(1).tasks.get(0), 600, 10, filterOf(0, 10, 1 << 12));
    JobFixtures.succeeded(job.stages.get(1).tasks.get(1), E, 0, 1);
    job.stages
        .get(1)
        .tasks
        .get(1)
        .summarize(
            TaskState.TASK_STATE_SUCCEEDED,
            TaskMetrics.newBuilder()
                .addPartitionBytes(0)
                .addPartitionRows(0)
                .addKeyFilters(KeyFilterBits.newBuilder().setFilterId(2).setBits(ByteString.EMPTY))
                .build());
    assertThat(RuntimeFilterChoice.apply(scan))
        .startsWith(
            "rows filtered by a Bloom filter of the join keys of stage 1 (10 rows, 4096 bits");
  }

  @Test
  void bloomPlanIsNotUsedOverItsRowsOrWithoutEveryTasksFilterOrWhenTooFull() {
    Job tooMany = bloomJob(500, 20);
    wrote(tooMany.stages.get(1).tasks.get(0), 300, 10, filterOf(0, 10, 1 << 12));
    wrote(tooMany.stages.get(1).tasks.get(1), 400, 12, filterOf(100, 12, 1 << 12));
    assertThat(RuntimeFilterChoice.apply(tooMany.stages.get(2)))
        .isEqualTo(
            "runtime filter from stage 1 not used: it wrote 700 bytes, over 500, and 22 rows,"
                + " over the Bloom filter's 20");

    Job missing = bloomJob(500, 1000);
    wrote(missing.stages.get(1).tasks.get(0), 300, 10, filterOf(0, 10, 1 << 12));
    wrote(missing.stages.get(1).tasks.get(1), 400, 12, null);
    assertThat(RuntimeFilterChoice.apply(missing.stages.get(2)))
        .endsWith("and a task of it reported no Bloom filter");

    Job full = bloomJob(500, 1000);
    wrote(full.stages.get(1).tasks.get(0), 300, 10, filterOf(0, 500, 256));
    wrote(full.stages.get(1).tasks.get(1), 400, 12, filterOf(1000, 10, 256));
    StageRun scan = full.stages.get(2);
    assertThat(RuntimeFilterChoice.apply(scan)).contains("of its bits set");
    assertThat(scan.plan).isEqualTo(scan.spec.getPlan());
    assertThat(scan.keyFilter).isNull();
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
