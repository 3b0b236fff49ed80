package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.InputSlice;
import dev.quiver.distributed.proto.TaskMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where tasks run and how many run at once: pure functions of the executors, their free slots and
 * the tasks' state, so that they are tested without a server. {@link JobManager} applies their
 * answers on the job loop.
 */
final class Placement {
  private Placement() {}

  /** The executors that may get tasks: the schedulable ones LaunchTask did not just fail on. */
  static List<ExecutorInfo> usable(List<ExecutorInfo> schedulable, Set<String> unreachable) {
    List<ExecutorInfo> usable = new ArrayList<>();
    for (ExecutorInfo info : schedulable) {
      if (!unreachable.contains(info.getExecutorId())) {
        usable.add(info);
      }
    }
    return usable;
  }

  /** Free task slots per usable executor: its cores less the attempts running there. */
  static Map<String, Integer> freeSlots(
      List<ExecutorInfo> usable, Map<String, ? extends Set<?>> running) {
    Map<String, Integer> free = new HashMap<>();
    for (ExecutorInfo info : usable) {
      Set<?> attempts = running.get(info.getExecutorId());
      int busy = attempts == null ? 0 : attempts.size();
      free.put(info.getExecutorId(), info.getCores() - busy);
    }
    return free;
  }

  static boolean hasFreeSlot(Map<String, Integer> free) {
    return free.values().stream().anyMatch(n -> n > 0);
  }

  /**
   * The executor for a task: the one with the most free slots; among those, the one already holding
   * the most of the task's input bytes ({@code inputBytes}, so less data crosses the network), then
   * round-robin by id after {@code lastPicked}. A task that failed on some executors ({@code
   * failedOn}) goes to one of the others while any exists, waiting for a slot there (null) rather
   * than going back where it failed. {@code busy} (may be null) is an executor the task already
   * runs on. Null when no executor can take it now; {@code free} is not changed.
   */
  static ExecutorInfo choose(
      List<ExecutorInfo> usable,
      Map<String, Integer> free,
      Set<String> failedOn,
      Map<String, Long> inputBytes,
      String busy,
      String lastPicked) {
    List<ExecutorInfo> allowed =
        usable.stream().filter(e -> !e.getExecutorId().equals(busy)).toList();
    List<ExecutorInfo> fresh =
        allowed.stream().filter(e -> !failedOn.contains(e.getExecutorId())).toList();
    List<ExecutorInfo> candidates =
        (fresh.isEmpty() ? allowed : fresh)
            .stream().filter(e -> free.get(e.getExecutorId()) > 0).toList();
    if (candidates.isEmpty()) {
      return null;
    }
    int most = candidates.stream().mapToInt(e -> free.get(e.getExecutorId())).max().orElse(0);
    List<ExecutorInfo> tied =
        candidates.stream().filter(e -> free.get(e.getExecutorId()) == most).toList();
    long mostHeld =
        tied.stream()
            .mapToLong(e -> inputBytes.getOrDefault(e.getExecutorId(), 0L))
            .max()
            .orElse(0);
    tied =
        tied.stream()
            .filter(e -> inputBytes.getOrDefault(e.getExecutorId(), 0L) == mostHeld)
            .toList();
    return tied.stream()
        .filter(e -> e.getExecutorId().compareTo(lastPicked) > 0)
        .findFirst()
        .orElse(tied.get(0));
  }

  /**
   * Bytes of the task's input held per executor: the outputs of its input stages' tasks (every task
   * of a stage reads from each of them, so the whole output counts), or, of an input adaptive
   * execution gave the task a slice of, the bytes of that slice.
   */
  static Map<String, Long> inputBytesByExecutor(TaskRun task) {
    Map<String, Long> held = new HashMap<>();
    for (StageRun input : task.stage.inputs) {
      InputSlice slice = task.input == null ? null : task.input.slices().get(input.id());
      for (TaskRun producer : input.tasks) {
        if (producer.phase == TaskRun.Phase.SUCCEEDED
            && !producer.skipped
            && producer.executor != null
            && producer.summary != null) {
          held.merge(producer.executor.getExecutorId(), bytesRead(producer, slice), Long::sum);
        }
      }
    }
    return held;
  }

  /**
   * Bytes of {@code producer}'s output a task reading {@code slice} of it reads (null: all of it,
   * as far as placement cares).
   */
  private static long bytesRead(TaskRun producer, InputSlice slice) {
    TaskMetrics m = producer.summary.getMetrics();
    if (slice == null) {
      return m.getOutputBytes();
    }
    if (producer.index < slice.getFirstTask() || producer.index >= slice.getEndTask()) {
      return 0;
    }
    long bytes = 0;
    for (int p = slice.getFirstPartition();
        p < slice.getEndPartition() && p < m.getPartitionBytesCount();
        p++) {
      bytes += m.getPartitionBytes(p);
    }
    return bytes;
  }

  /**
   * How many more tasks of a stage under a row limit to run in the next wave, as Spark's take()
   * does: one first ({@code ran} is 0), then, when a wave has ended with too few rows, up to four
   * times as many as ran, fewer when the {@code rows} written so far say fewer will do.
   */
  static long nextWave(long rowLimit, int ran, long rows) {
    if (ran == 0) {
      return 1;
    }
    if (rows == 0) {
      return 4L * ran;
    }
    long estimate = (long) Math.ceil(1.5 * rowLimit * ran / rows) - ran;
    return Math.max(1, Math.min(4L * ran, estimate));
  }
}
