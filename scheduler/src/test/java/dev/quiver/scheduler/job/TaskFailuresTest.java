package dev.quiver.scheduler.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ShufflePartitionId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class TaskFailuresTest {

  private static ErrorInfo error(String kind, String message) {
    return ErrorInfo.newBuilder().setKind(kind).setMessage(message).build();
  }

  @Test
  void onlyExecutorTransportAndMarkedFailuresAreTransient() {
    assertThat(TaskFailures.isTransient(error("DataSourceException", "no such file"))).isFalse();
    assertThat(TaskFailures.isTransient(error("SqlParseException", "bad SQL"))).isFalse();
    assertThat(TaskFailures.isTransient(error("ShuffleFetchException", "gone"))).isTrue();
    assertThat(TaskFailures.isTransient(error("ExecutorLostException", "lost"))).isTrue();
    assertThat(TaskFailures.isTransient(error("QuiverException", "UNAVAILABLE: io exception")))
        .isTrue();
    assertThat(
            TaskFailures.isTransient(
                error("ResourcesExhaustedException", "pool").toBuilder()
                    .setRetryable(true)
                    .build()))
        .isTrue();
  }

  @Test
  void missingPartitionComesFromTheFieldOrTheMessage() {
    ShufflePartitionId id =
        ShufflePartitionId.newBuilder()
            .setJobId("job-1-ab")
            .setStageId(3)
            .setTaskId(2)
            .setPartition(7)
            .build();
    assertThat(
            TaskFailures.missingPartition(
                error("ShuffleFetchException", "x").toBuilder().setMissingPartition(id).build()))
        .contains(id);
    assertThat(
            TaskFailures.missingPartition(
                error(
                    "ShuffleFetchException",
                    "Could not fetch job job-1-ab stage 3 task 2 partition 7 on e1 (h:1): gone")))
        .contains(id);
    assertThat(TaskFailures.missingPartition(error("ShuffleFetchException", "gone"))).isEmpty();
    assertThat(
            TaskFailures.missingPartition(
                error("DataSourceException", "job j stage 1 task 0 partition 0")))
        .isEmpty();
  }
}
