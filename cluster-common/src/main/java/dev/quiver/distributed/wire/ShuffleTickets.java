package dev.quiver.distributed.wire;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.proto.ShuffleTicket;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Ticket;

/**
 * Encodes a shuffle partition's id and its job's capability as an Arrow Flight ticket and back. A
 * ticket holds a secret (the capability): never log or print one.
 */
public final class ShuffleTickets {

  private ShuffleTickets() {}

  /** Builds the id of one output partition of one task. */
  public static ShufflePartitionId id(String jobId, int stageId, int taskId, int partition) {
    return ShufflePartitionId.newBuilder()
        .setJobId(jobId)
        .setStageId(stageId)
        .setTaskId(taskId)
        .setPartition(partition)
        .build();
  }

  /** The Flight ticket that fetches the given partition of a job with {@code capability}. */
  public static Ticket encode(ShufflePartitionId id, ByteString capability) {
    return new Ticket(
        ShuffleTicket.newBuilder()
            .setPartition(id)
            .setJobCapability(capability)
            .build()
            .toByteArray());
  }

  /** {@code ticket} marked as asked by a consumer starved of data ({@code consumer_starved}). */
  public static Ticket starved(Ticket ticket) {
    return new Ticket(decode(ticket).toBuilder().setConsumerStarved(true).build().toByteArray());
  }

  /**
   * Decodes a Flight ticket.
   *
   * @throws FlightRuntimeException INVALID_ARGUMENT when the bytes are not a shuffle ticket
   */
  public static ShuffleTicket decode(Ticket ticket) {
    try {
      ShuffleTicket t = ShuffleTicket.parseFrom(ticket.getBytes());
      if (t.getPartition().getJobId().isEmpty()) {
        throw new InvalidProtocolBufferException("no job id");
      }
      return t;
    } catch (InvalidProtocolBufferException e) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "the Flight ticket ("
                  + ticket.getBytes().length
                  + " bytes) is not a Quiver shuffle ticket: "
                  + e.getMessage()
                  + "; build tickets with ShuffleTickets.encode")
          .withCause(e)
          .toRuntimeException();
    }
  }

  /** A readable name for the partition, e.g. "job q1 stage 2 task 3 partition 0". */
  public static String describe(ShufflePartitionId id) {
    return "job "
        + id.getJobId()
        + " stage "
        + id.getStageId()
        + " task "
        + id.getTaskId()
        + " partition "
        + id.getPartition();
  }
}
