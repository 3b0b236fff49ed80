package dev.quiver.distributed.shuffle;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.wire.ShuffleTickets;
import org.apache.arrow.flight.Ticket;

/**
 * Where one output partition of one producer task can be fetched: the executor holding it, the
 * address of its Flight server and the job's capability, which the executor wants in the ticket (a
 * secret: {@link #toString()} leaves it out). An {@code empty} location names a partition that has
 * no rows and lives nowhere: its task was skipped because the consumers already had the rows they
 * need.
 */
public record ShuffleLocation(
    String jobId,
    int stageId,
    int taskId,
    int partition,
    String executorId,
    String host,
    int port,
    boolean empty,
    ByteString capability) {

  /** A location holding data, without a capability. */
  public ShuffleLocation(
      String jobId,
      int stageId,
      int taskId,
      int partition,
      String executorId,
      String host,
      int port) {
    this(jobId, stageId, taskId, partition, executorId, host, port, false, ByteString.EMPTY);
  }

  /** The Flight ticket's id for this partition. */
  public ShufflePartitionId id() {
    return ShuffleTickets.id(jobId, stageId, taskId, partition);
  }

  /** The Flight ticket that fetches this partition: its id and the job's capability. */
  public Ticket ticket() {
    return ShuffleTickets.encode(id(), capability);
  }

  /** This location with another capability. */
  public ShuffleLocation withCapability(ByteString jobCapability) {
    return new ShuffleLocation(
        jobId, stageId, taskId, partition, executorId, host, port, empty, jobCapability);
  }

  /** Reads a location from its wire form. */
  public static ShuffleLocation fromProto(PartitionLocation p) {
    ShufflePartitionId id = p.getPartition();
    return new ShuffleLocation(
        id.getJobId(),
        id.getStageId(),
        id.getTaskId(),
        id.getPartition(),
        p.getExecutorId(),
        p.getHost(),
        p.getFlightPort(),
        p.getEmpty(),
        p.getJobCapability());
  }

  /** The wire form. */
  public PartitionLocation toProto() {
    return PartitionLocation.newBuilder()
        .setPartition(id())
        .setExecutorId(executorId)
        .setHost(host)
        .setFlightPort(port)
        .setEmpty(empty)
        .setJobCapability(capability)
        .build();
  }

  @Override
  public String toString() {
    return empty
        ? ShuffleTickets.describe(id()) + " (empty: its task was skipped)"
        : ShuffleTickets.describe(id()) + " on " + executorId + " (" + host + ":" + port + ")";
  }
}
