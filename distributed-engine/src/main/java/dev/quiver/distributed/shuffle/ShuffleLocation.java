package dev.quiver.distributed.shuffle;

import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.wire.ShuffleTickets;

/**
 * Where one output partition of one producer task can be fetched: the executor holding it and the
 * address of its Flight server. An {@code empty} location names a partition that has no rows and
 * lives nowhere: its task was skipped because the consumers already had the rows they need.
 */
public record ShuffleLocation(
    String jobId,
    int stageId,
    int taskId,
    int partition,
    String executorId,
    String host,
    int port,
    boolean empty) {

  /** A location holding data. */
  public ShuffleLocation(
      String jobId, int stageId, int taskId, int partition, String executorId, String host, int port) {
    this(jobId, stageId, taskId, partition, executorId, host, port, false);
  }

  /** The Flight ticket's id for this partition. */
  public ShufflePartitionId id() {
    return ShuffleTickets.id(jobId, stageId, taskId, partition);
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
        p.getEmpty());
  }

  /** The wire form. */
  public PartitionLocation toProto() {
    return PartitionLocation.newBuilder()
        .setPartition(id())
        .setExecutorId(executorId)
        .setHost(host)
        .setFlightPort(port)
        .setEmpty(empty)
        .build();
  }

  @Override
  public String toString() {
    return empty
        ? ShuffleTickets.describe(id()) + " (empty: its task was skipped)"
        : ShuffleTickets.describe(id()) + " on " + executorId + " (" + host + ":" + port + ")";
  }
}
