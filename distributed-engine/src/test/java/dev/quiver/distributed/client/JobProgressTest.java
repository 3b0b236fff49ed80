package dev.quiver.distributed.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.quiver.decorators.JobProgress;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskSummary;
import org.junit.jupiter.api.Test;

class JobProgressTest {
  private static final JobSpec SPEC =
      JobSpec.newBuilder()
          .addStages(stage(1, 2))
          .addStages(stage(2, 3).toBuilder().addInputStageIds(1))
          .setFinalStageId(2)
          .build();

  private static StageSpec stage(int id, int tasks) {
    return StageSpec.newBuilder()
        .setStageId(id)
        .setTaskCount(tasks)
        .setPlan(ByteString.copyFromUtf8("plan"))
        .setOutputPartitions(1)
        .build();
  }

  private static TaskSummary task(int stage, int task, TaskState state, long rows) {
    return TaskSummary.newBuilder()
        .setTask(TaskId.newBuilder().setJobId("job-1").setStageId(stage).setTaskId(task))
        .setExecutorId("e1")
        .setState(state)
        .setMetrics(TaskMetrics.newBuilder().setOutputRows(rows))
        .build();
  }

  @Test
  void beforeAnyStatusTheJobIsQueuedWithItsTotals() {
    JobProgress p = JobHandle.progressOf(SPEC, null, "job-1", 5);
    assertThat(p).isEqualTo(new JobProgress("job-1", "QUEUED", 0, 2, 0, 5, 0, 0, 5, 0, ""));
    assertThat(p.fraction()).isZero();
    assertThat(p.finished()).isFalse();
  }

  @Test
  void countsFinishedStagesTasksRunningTasksAndRowsOfSucceededTasks() {
    JobStatusUpdate status =
        JobStatusUpdate.newBuilder()
            .setJobId("job-1")
            .setState(JobState.JOB_STATE_RUNNING)
            .addStages(
                StageStatus.newBuilder()
                    .setStageId(1)
                    .setTaskCount(2)
                    .setTasksSucceeded(2)
                    .addTasks(task(1, 0, TaskState.TASK_STATE_SUCCEEDED, 100))
                    .addTasks(task(1, 1, TaskState.TASK_STATE_SUCCEEDED, 50)))
            .addStages(
                StageStatus.newBuilder()
                    .setStageId(2)
                    .setTaskCount(3)
                    .setTasksSucceeded(1)
                    .addTasks(task(2, 0, TaskState.TASK_STATE_SUCCEEDED, 7))
                    .addTasks(task(2, 1, TaskState.TASK_STATE_RUNNING, 0))
                    .addTasks(task(2, 2, TaskState.TASK_STATE_FAILED, 999)))
            .setResourceGroup("etl")
            .build();
    JobProgress p = JobHandle.progressOf(SPEC, status, "job-1", 1200);
    assertThat(p)
        .isEqualTo(new JobProgress("job-1", "RUNNING", 1, 2, 3, 5, 1, 157, 1200, 0, "etl"));
    assertThat(p.fraction()).isEqualTo(0.6);
    JobProgress done =
        JobHandle.progressOf(
            SPEC, status.toBuilder().setState(JobState.JOB_STATE_CANCELLED).build(), "job-1", 1);
    assertThat(done.finished()).isTrue();
    assertThat(done.state()).isEqualTo("CANCELLED");
  }

  @Test
  void aJobWaitingForAdmissionShowsItsGroupAndPlaceInTheQueue() {
    JobStatusUpdate status =
        JobStatusUpdate.newBuilder()
            .setJobId("job-2")
            .setState(JobState.JOB_STATE_QUEUED)
            .setQueuePosition(3)
            .setResourceGroup("etl")
            .build();
    JobProgress p = JobHandle.progressOf(SPEC, status, "job-2", 40);
    assertThat(p.state()).isEqualTo("QUEUED");
    assertThat(p.queuePosition()).isEqualTo(3);
    assertThat(p.resourceGroup()).isEqualTo("etl");
    assertThat(p.finished()).isFalse();
  }
}
