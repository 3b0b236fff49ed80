package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ShufflePartitionId;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Decides how the scheduler reacts to a failed task attempt. */
public final class TaskFailures {

  /** The kind a consumer reports when a producer's output partition cannot be fetched. */
  public static final String SHUFFLE_FETCH = "ShuffleFetchException";

  /** The kind an executor reports when its work directory failed under a task. */
  public static final String EXECUTOR_DISK = "ExecutorDiskException";

  /** Kinds that say the task's executor or its network failed, not the task itself. */
  private static final Set<String> TRANSIENT_KINDS =
      Set.of(SHUFFLE_FETCH, EXECUTOR_DISK, "ExecutorLostException", "ExecutorUnavailableException");

  /** Transport failures an executor may report with a generic kind. */
  private static final Pattern TRANSPORT = Pattern.compile("\\bUNAVAILABLE\\b");

  /** How {@code ShuffleTickets.describe} names a partition inside a ShuffleFetchException. */
  private static final Pattern PARTITION =
      Pattern.compile("job (\\S+) stage (\\d+) task (\\d+) partition (\\d+)");

  private TaskFailures() {}

  /** True when retrying the task may succeed: it failed for a reason outside its plan and data. */
  public static boolean isTransient(ErrorInfo error) {
    return error.getRetryable()
        || TRANSIENT_KINDS.contains(error.getKind())
        || TRANSPORT.matcher(error.getMessage()).find();
  }

  /**
   * The producer partition a consumer could not fetch: the error's {@code missing_partition}, or
   * the partition its message names.
   */
  public static Optional<ShufflePartitionId> missingPartition(ErrorInfo error) {
    if (!SHUFFLE_FETCH.equals(error.getKind())) {
      return Optional.empty();
    }
    if (error.hasMissingPartition()) {
      return Optional.of(error.getMissingPartition());
    }
    Matcher m = PARTITION.matcher(error.getMessage());
    if (!m.find()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          ShufflePartitionId.newBuilder()
              .setJobId(m.group(1))
              .setStageId(Integer.parseInt(m.group(2)))
              .setTaskId(Integer.parseInt(m.group(3)))
              .setPartition(Integer.parseInt(m.group(4)))
              .build());
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
