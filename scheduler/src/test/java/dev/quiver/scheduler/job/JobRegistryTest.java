package dev.quiver.scheduler.job;

import static dev.quiver.scheduler.job.JobFixtures.executor;
import static dev.quiver.scheduler.job.JobFixtures.running;
import static dev.quiver.scheduler.job.JobFixtures.stage;
import static dev.quiver.scheduler.job.JobFixtures.succeeded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.scheduler.time.SchedulerClock;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Submissions, capabilities and the jobs remembered, without a server or loop. */
@Timeout(10)
class JobRegistryTest {

  private final JobRegistry jobs = new JobRegistry(SchedulerClock.of(() -> 0, () -> 1_000));

  private static JobSpec spec(String name) {
    return JobSpec.newBuilder()
        .setName(name)
        .addStages(stage(1, 2))
        .addStages(stage(2, 1, 1))
        .setFinalStageId(2)
        .build();
  }

  private static Status.Code code(Runnable call) {
    try {
      call.run();
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  @Test
  void eachJobGetsItsOwnIdAndCapabilityInSubmissionOrder() {
    Job first = jobs.add(spec("first"), "");
    Job second = jobs.add(spec("second"), "");
    assertThat(first.id).matches("job-1-[0-9a-f]{16}");
    assertThat(second.id).matches("job-2-[0-9a-f]{16}");
    assertThat(first.capability).isNotEqualTo(second.capability);
    assertThat(first.capability.size()).isEqualTo(32);
    assertThat(jobs.live()).containsExactly(first, second);
    assertThat(jobs.get(first.id)).isSameAs(first);
    assertThat(jobs.require(second.id)).isSameAs(second);
    assertThat(first.submittedAtMillis).isEqualTo(1_000);
  }

  @Test
  void aRepeatedSubmissionFindsItsJobWhileItIsRemembered() {
    Job job = jobs.add(spec("q"), "3f1c2b9e-submission");
    assertThat(jobs.repeated("3f1c2b9e-submission")).isSameAs(job);
    assertThat(jobs.repeated("another")).isNull();
    // Without a submission id nothing is deduplicated.
    jobs.add(spec("q"), "");
    assertThat(jobs.repeated("")).isNull();

    job.state = JobState.JOB_STATE_SUCCEEDED;
    jobs.forget(job, 0);
    assertThat(jobs.repeated("3f1c2b9e-submission")).isNull();
  }

  @Test
  void aSubmissionIdLongerThanIsKeptIsRefused() {
    JobRegistry.checkSubmissionId("x".repeat(128));
    assertThatThrownBy(() -> JobRegistry.checkSubmissionId("x".repeat(129)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
        .hasMessageContaining("submission_id has 129 characters; at most 128 are kept");
  }

  @Test
  void onlyTheJobsCapabilityPasses() {
    Job job = jobs.add(spec("q"), "");
    Job other = jobs.add(spec("q"), "");
    assertThat(code(() -> jobs.checkCapability(job.id, job.capability, "CancelJob")))
        .isEqualTo(Status.Code.OK);
    assertThatThrownBy(() -> jobs.checkCapability(job.id, other.capability, "CancelJob"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED))
        .hasMessageContaining("CancelJob of job " + job.id + " needs the job's capability")
        .message()
        .doesNotContain(job.capability.toStringUtf8(), other.capability.toStringUtf8());
    assertThat(code(() -> jobs.checkCapability(job.id, ByteString.EMPTY, "JobStatus")))
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    // A job not remembered passes: the call itself answers NOT_FOUND.
    assertThat(code(() -> jobs.checkCapability("job-9-00", ByteString.EMPTY, "JobStatus")))
        .isEqualTo(Status.Code.OK);
    assertThat(code(() -> jobs.require("job-9-00"))).isEqualTo(Status.Code.NOT_FOUND);

    job.state = JobState.JOB_STATE_CANCELLED;
    jobs.forget(job, 0);
    assertThat(code(() -> jobs.checkCapability(job.id, ByteString.EMPTY, "JobStatus")))
        .isEqualTo(Status.Code.OK);
    assertThat(code(() -> jobs.require(job.id))).isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void forgottenJobsStayInABoundedHistoryNewestFirst() {
    List<Job> forgotten = new ArrayList<>();
    for (int i = 0; i < JobRegistry.HISTORY_PAGE + 1; i++) {
      Job job = jobs.add(spec("old " + i), "");
      job.state = JobState.JOB_STATE_SUCCEEDED;
      jobs.forget(job, 0);
      forgotten.add(job);
    }
    Job live = jobs.add(spec("live"), "");
    assertThat(jobs.live()).containsExactly(live);

    List<JobViews.JobSummary> summaries = jobs.summaries();
    assertThat(summaries).hasSize(JobRegistry.HISTORY_PAGE + 1);
    assertThat(summaries.get(0).id()).isEqualTo(live.id);
    assertThat(summaries.get(1).id()).isEqualTo(forgotten.get(JobRegistry.HISTORY_PAGE).id);
    assertThat(summaries.get(JobRegistry.HISTORY_PAGE).id()).isEqualTo(forgotten.get(1).id);
    assertThat(summaries.get(0).fromHistory()).isFalse();
    assertThat(summaries.get(1).fromHistory()).isTrue();
    // The oldest dropped out.
    assertThat(jobs.detail(forgotten.get(0).id, 0)).isEmpty();
    assertThat(jobs.detail(forgotten.get(1).id, 0).orElseThrow().summary().name())
        .isEqualTo("old 1");
    assertThat(jobs.detail(live.id, 0).orElseThrow().stages()).hasSize(2);
    // The next page: what the first one left out, without the remembered jobs.
    assertThat(jobs.summaries(JobRegistry.HISTORY_PAGE - 1, 10))
        .extracting(JobViews.JobSummary::id)
        .containsExactly(forgotten.get(1).id);
  }

  @Test
  void aJobEndedIsInTheHistoryOnceAndListedOnceWhileRemembered() {
    Job job = jobs.add(spec("SELECT 1"), "");
    job.state = JobState.JOB_STATE_SUCCEEDED;
    jobs.ended(job, 0);
    assertThat(jobs.summaries()).extracting(JobViews.JobSummary::id).containsExactly(job.id);
    assertThat(jobs.summaries().get(0).fromHistory()).isFalse();
    jobs.forget(job, 0);
    assertThat(jobs.summaries()).extracting(JobViews.JobSummary::id).containsExactly(job.id);
    assertThat(jobs.summaries().get(0).fromHistory()).isTrue();
  }

  @Test
  void taskCountsCoverUnfinishedJobsOnly() {
    Job running = jobs.add(spec("running"), "");
    running(running.stages.get(1).tasks.get(0), executor("a", 2), 0);
    Job done = jobs.add(spec("done"), "");
    done.state = JobState.JOB_STATE_FAILED;
    Job queued = jobs.add(spec("queued"), "");
    succeeded(queued.stages.get(1).tasks.get(0), executor("a", 2), 1, 1);
    // running: 1 running and 2 waiting; queued: 2 waiting (one task succeeded). In each, one
    // waiting task is ready (stage 1's); stage 2's waits for stage 1 to complete.
    assertThat(jobs.taskCounts()).isEqualTo(new JobViews.TaskCounts(4, 1, 2, 2));
  }
}
