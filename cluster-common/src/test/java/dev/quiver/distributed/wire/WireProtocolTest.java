package dev.quiver.distributed.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.SubmitJobRequest;
import dev.quiver.distributed.security.JobCapabilities;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Ticket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class WireProtocolTest {

  @Test
  void sameVersionIsAccepted() {
    WireProtocol.requireCompatible(WireProtocol.VERSION, "executor e1", "scheduler");
  }

  @Test
  void otherVersionIsRefusedNamingBoth() {
    assertThatThrownBy(
            () ->
                WireProtocol.requireCompatible(
                    WireProtocol.VERSION + 1, "executor e1", "scheduler"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription())
                  .contains("executor e1")
                  .contains("protocol version " + (WireProtocol.VERSION + 1))
                  .contains("version " + WireProtocol.VERSION);
            });
  }

  @Test
  void missingVersionIsRefused() {
    assertThatThrownBy(() -> WireProtocol.requireCompatible(0, "client", "scheduler"))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("no protocol version (0)");
  }

  @Test
  void ticketRoundTrips() {
    ShufflePartitionId id = ShuffleTickets.id("job-7", 2, 5, 11);
    ByteString capability = JobCapabilities.newCapability();
    Ticket ticket = ShuffleTickets.encode(id, capability);
    assertThat(ShuffleTickets.decode(ticket).getPartition()).isEqualTo(id);
    assertThat(ShuffleTickets.decode(ticket).getJobCapability()).isEqualTo(capability);
    assertThat(capability.size()).isEqualTo(32);
    assertThat(JobCapabilities.matches(capability, JobCapabilities.newCapability())).isFalse();
    assertThat(JobCapabilities.matches(capability, ByteString.EMPTY)).isFalse();
    assertThat(JobCapabilities.matches(ByteString.EMPTY, ByteString.EMPTY)).isFalse();
    assertThat(JobCapabilities.matches(capability, ByteString.copyFrom(capability.toByteArray())))
        .isTrue();
    assertThat(ShuffleTickets.describe(id)).isEqualTo("job job-7 stage 2 task 5 partition 11");
  }

  @Test
  void garbageTicketIsInvalidArgument() {
    Ticket garbage = new Ticket("not a ticket".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> ShuffleTickets.decode(garbage))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> {
              assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
              assertThat(e.getMessage()).contains("not a Quiver shuffle ticket");
            });
  }

  @Test
  void stageGraphSurvivesSerialization() throws Exception {
    SubmitJobRequest request =
        SubmitJobRequest.newBuilder()
            .setProtocolVersion(WireProtocol.VERSION)
            .setJob(
                JobSpec.newBuilder()
                    .setName("q1")
                    .setFinalStageId(2)
                    .putSettings("quiver.batch_size", "4096")
                    .addStages(
                        StageSpec.newBuilder()
                            .setStageId(1)
                            .setTaskCount(4)
                            .setOutputPartitions(3)
                            .setPlan(ByteString.copyFromUtf8("plan-1")))
                    .addStages(
                        StageSpec.newBuilder()
                            .setStageId(2)
                            .setTaskCount(3)
                            .addInputStageIds(1)
                            .setOutputPartitions(1)
                            .setPlan(ByteString.copyFromUtf8("plan-2"))))
            .build();
    SubmitJobRequest back = SubmitJobRequest.parseFrom(request.toByteArray());
    assertThat(back).isEqualTo(request);
    assertThat(back.getJob().getStages(1).getInputStageIdsList()).containsExactly(1);
  }
}
