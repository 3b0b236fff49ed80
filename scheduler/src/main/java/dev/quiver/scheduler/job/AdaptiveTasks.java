package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.AdaptiveSpec;
import dev.quiver.distributed.proto.InputSlice;
import dev.quiver.distributed.proto.TaskMetrics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Adaptive execution: the tasks a stage runs, decided once its inputs are complete from the bytes
 * each producer task wrote to each partition, within what its plan allows ({@link AdaptiveSpec},
 * found by the client's planner). A pure function of the job's state, tested without a server;
 * {@link SchedulingPass} applies it before the stage's first task is launched. Three changes, tried
 * in this order:
 *
 * <ol>
 *   <li><b>Broadcast</b>: of two aligned inputs, one wrote at most {@code broadcast_bytes} and the
 *       other is splittable and larger: each task reads the small one whole and the output of one
 *       producer task of the large one, which {@link Placement} puts on the executor that wrote it.
 *       The large side then never crosses the network, as in a broadcast join.
 *   <li><b>Skew</b>: a partition of a splittable input over {@code skew_factor} times its median
 *       and over {@code skew_min_bytes} is read by several tasks, each taking a run of producer
 *       tasks' outputs of it and the same partition of the other inputs whole.
 *   <li><b>Coalescing</b>: adjacent partitions are read by one task while together they stay within
 *       the larger of {@code min_partition_bytes} and the stage's input over its planned tasks, so
 *       tiny partitions stop costing a task each but the stage keeps its parallelism.
 * </ol>
 */
final class AdaptiveTasks {
  private AdaptiveTasks() {}

  /**
   * What one task of a reshaped stage runs: the partition of the stage plan it executes, and for
   * each input it does not read as that partition of every producer task, the slice it reads.
   */
  record TaskInput(int planPartition, Map<Integer, InputSlice> slices) {
    TaskInput {
      slices = Map.copyOf(slices);
    }
  }

  /** The stage's new tasks and a sentence saying what changed. */
  record Reshape(List<TaskInput> tasks, String note) {
    Reshape {
      tasks = List.copyOf(tasks);
    }
  }

  /** The bytes and rows one input stage's tasks wrote, by producer task and partition. */
  record InputSizes(int stageId, long[][] bytes, long[][] rows) {
    int tasks() {
      return bytes.length;
    }

    /** Bytes of {@code partition} over all producer tasks. */
    long partitionBytes(int partition) {
      long sum = 0;
      for (long[] task : bytes) {
        sum += task[partition];
      }
      return sum;
    }

    long totalBytes() {
      long sum = 0;
      for (long[] task : bytes) {
        for (long b : task) {
          sum += b;
        }
      }
      return sum;
    }

    long totalRows() {
      long sum = 0;
      for (long[] task : rows) {
        for (long r : task) {
          sum += r;
        }
      }
      return sum;
    }
  }

  /**
   * The new tasks of {@code stage}, whose inputs are complete; empty when it runs as planned (no
   * adaptive spec, an input without sizes, or nothing to change).
   */
  static Optional<Reshape> of(StageRun stage) {
    if (!stage.spec.hasAdaptive()) {
      return Optional.empty();
    }
    List<InputSizes> aligned = new ArrayList<>();
    for (int id : stage.spec.getAdaptive().getAlignedInputsList()) {
      StageRun input = stage.job.stages.get(id);
      Optional<InputSizes> sizes = input == null ? Optional.empty() : sizes(input);
      if (sizes.isEmpty()) {
        return Optional.empty();
      }
      aligned.add(sizes.get());
    }
    return plan(stage.spec.getAdaptive(), stage.spec.getTaskCount(), aligned);
  }

  /** What the complete stage {@code input} wrote, or empty when a task did not report sizes. */
  static Optional<InputSizes> sizes(StageRun input) {
    int partitions = input.spec.getOutputPartitions();
    long[][] bytes = new long[input.tasks.size()][];
    long[][] rows = new long[input.tasks.size()][];
    for (TaskRun t : input.tasks) {
      if (t.skipped) {
        bytes[t.index] = new long[partitions];
        rows[t.index] = new long[partitions];
        continue;
      }
      TaskMetrics m = t.summary == null ? null : t.summary.getMetrics();
      if (m == null
          || m.getPartitionBytesCount() != partitions
          || m.getPartitionRowsCount() != partitions) {
        return Optional.empty();
      }
      bytes[t.index] = m.getPartitionBytesList().stream().mapToLong(Long::longValue).toArray();
      rows[t.index] = m.getPartitionRowsList().stream().mapToLong(Long::longValue).toArray();
    }
    return Optional.of(new InputSizes(input.id(), bytes, rows));
  }

  /**
   * The reshaping of a stage of {@code plannedTasks} tasks with {@code aligned} inputs (each of
   * {@code plannedTasks} partitions) under {@code spec}; empty when the plan stands.
   */
  static Optional<Reshape> plan(AdaptiveSpec spec, int plannedTasks, List<InputSizes> aligned) {
    for (InputSizes in : aligned) {
      if (in.tasks() == 0 || in.bytes()[0].length != plannedTasks) {
        return Optional.empty();
      }
    }
    Optional<Reshape> broadcast = broadcast(spec, plannedTasks, aligned);
    if (broadcast.isPresent()) {
      return broadcast;
    }
    return skewAndCoalesce(spec, plannedTasks, aligned);
  }

  private static Optional<Reshape> broadcast(
      AdaptiveSpec spec, int plannedTasks, List<InputSizes> aligned) {
    if (spec.getBroadcastBytes() <= 0 || aligned.size() != 2) {
      return Optional.empty();
    }
    for (int i = 0; i < 2; i++) {
      InputSizes small = aligned.get(i);
      InputSizes large = aligned.get(1 - i);
      if (small.totalBytes() > spec.getBroadcastBytes()
          || !spec.getSplittableInputsList().contains(large.stageId())
          || large.totalBytes() <= small.totalBytes()) {
        continue;
      }
      List<TaskInput> tasks = new ArrayList<>();
      for (int t = 0; t < large.tasks(); t++) {
        Map<Integer, InputSlice> slices = new LinkedHashMap<>();
        slices.put(large.stageId(), slice(large.stageId(), 0, plannedTasks, t, t + 1));
        slices.put(small.stageId(), slice(small.stageId(), 0, plannedTasks, 0, small.tasks()));
        tasks.add(new TaskInput(0, slices));
      }
      return Optional.of(
          new Reshape(
              tasks,
              "broadcast join at run time: stage "
                  + small.stageId()
                  + " wrote "
                  + small.totalRows()
                  + " rows ("
                  + small.totalBytes()
                  + " bytes), read whole by each of "
                  + tasks.size()
                  + " tasks, each reading one task's output of stage "
                  + large.stageId()
                  + " where it was written (planned: "
                  + plannedTasks
                  + " tasks over hash partitions)"));
    }
    return Optional.empty();
  }

  private static Optional<Reshape> skewAndCoalesce(
      AdaptiveSpec spec, int plannedTasks, List<InputSizes> aligned) {
    long[] total = new long[plannedTasks];
    long all = 0;
    for (InputSizes in : aligned) {
      for (int p = 0; p < plannedTasks; p++) {
        total[p] += in.partitionBytes(p);
      }
      all += in.totalBytes();
    }
    // The skewed partitions, each with the splittable input whose share of it is most skewed.
    Map<Integer, InputSizes> skewed = new LinkedHashMap<>();
    Map<Integer, Long> skewMedians = new LinkedHashMap<>();
    if (spec.getSkewFactor() > 0) {
      for (InputSizes in : aligned) {
        if (!spec.getSplittableInputsList().contains(in.stageId()) || in.tasks() < 2) {
          continue;
        }
        long[] parts = new long[plannedTasks];
        for (int p = 0; p < plannedTasks; p++) {
          parts[p] = in.partitionBytes(p);
        }
        long median = median(parts);
        for (int p = 0; p < plannedTasks; p++) {
          boolean isSkewed =
              parts[p] > spec.getSkewMinBytes()
                  && parts[p] > (double) spec.getSkewFactor() * Math.max(1, median);
          InputSizes before = skewed.get(p);
          if (isSkewed && (before == null || parts[p] > before.partitionBytes(p))) {
            skewed.put(p, in);
            skewMedians.put(p, Math.max(1, median));
          }
        }
      }
    }
    long target =
        spec.getMinPartitionBytes() <= 0
            ? 0
            : Math.max(spec.getMinPartitionBytes(), (all + plannedTasks - 1) / plannedTasks);
    List<TaskInput> tasks = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    int coalescedTasks = 0;
    int coalesced = 0;
    int p = 0;
    while (p < plannedTasks) {
      InputSizes split = skewed.get(p);
      if (split != null) {
        List<int[]> runs = producerRuns(split, p, skewMedians.get(p));
        for (int[] run : runs) {
          tasks.add(
              new TaskInput(
                  p, Map.of(split.stageId(), slice(split.stageId(), p, p + 1, run[0], run[1]))));
        }
        notes.add(
            "skewed partition "
                + p
                + " of stage "
                + split.stageId()
                + " ("
                + split.partitionBytes(p)
                + " bytes, median "
                + skewMedians.get(p)
                + ") split into "
                + runs.size()
                + " tasks");
        p++;
        continue;
      }
      int end = p + 1;
      long bytes = total[p];
      while (target > 0
          && end < plannedTasks
          && !skewed.containsKey(end)
          && bytes + total[end] <= target) {
        bytes += total[end];
        end++;
      }
      if (end - p == 1) {
        tasks.add(new TaskInput(p, Map.of()));
      } else {
        Map<Integer, InputSlice> slices = new LinkedHashMap<>();
        for (InputSizes in : aligned) {
          slices.put(in.stageId(), slice(in.stageId(), p, end, 0, in.tasks()));
        }
        tasks.add(new TaskInput(p, slices));
        coalescedTasks++;
        coalesced += end - p;
      }
      p = end;
    }
    if (tasks.size() == plannedTasks && skewed.isEmpty()) {
      return Optional.empty();
    }
    if (coalesced > 0) {
      notes.add(
          coalesced
              + " partitions of "
              + all
              + " bytes in all coalesced into "
              + coalescedTasks
              + " tasks");
    }
    notes.add(plannedTasks + " tasks planned, " + tasks.size() + " run");
    return Optional.of(new Reshape(tasks, String.join("; ", notes)));
  }

  /**
   * Runs of consecutive producer tasks of {@code in} whose outputs of {@code partition} each come
   * to about {@code median} bytes (at least one task a run, one run per task at most).
   */
  static List<int[]> producerRuns(InputSizes in, int partition, long median) {
    long size = in.partitionBytes(partition);
    int pieces = (int) Math.min(in.tasks(), Math.max(1, (size + median - 1) / median));
    long per = (size + pieces - 1) / pieces;
    List<int[]> runs = new ArrayList<>();
    int start = 0;
    long acc = 0;
    for (int t = 0; t < in.tasks(); t++) {
      acc += in.bytes()[t][partition];
      if (t == in.tasks() - 1 || (acc >= per && runs.size() < pieces - 1)) {
        runs.add(new int[] {start, t + 1});
        start = t + 1;
        acc = 0;
      }
    }
    return runs;
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static InputSlice slice(
      int stageId, int firstPartition, int endPartition, int firstTask, int endTask) {
    return InputSlice.newBuilder()
        .setStageId(stageId)
        .setFirstPartition(firstPartition)
        .setEndPartition(endPartition)
        .setFirstTask(firstTask)
        .setEndTask(endTask)
        .build();
  }
}
