package dev.quiver.executor;

import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.executor.shuffle.ShuffleStore;
import dev.quiver.executor.task.TaskManager;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Locale;
import java.util.function.LongSupplier;

/** An executor's Prometheus metrics (all named {@code quiver_*}), beside the JVM's. */
final class ExecutorMetrics {
  // Without exemplars: sampling them starts Prometheus' static scheduler thread, which outlives
  // every cluster (mvn exec:java then waits 15 s for it) and Quiver has no traces to link.
  private final Counter tasksFinished;
  private final Histogram taskSeconds;
  private final Counter taskRows;
  private final Counter shuffleWritten;
  private final Counter shuffleFetched;

  ExecutorMetrics(PrometheusRegistry registry) {
    tasksFinished =
        Counter.builder()
            .name("quiver_executor_tasks_finished_total")
            .help("Task attempts this executor ended, by how (succeeded, failed, cancelled)")
            .labelNames("state")
            .withoutExemplars()
            .register(registry);
    taskSeconds =
        Histogram.builder()
            .name("quiver_executor_task_duration_seconds")
            .help("Run time of this executor's task attempts, by how they ended")
            .labelNames("state")
            .classicOnly()
            .classicUpperBounds(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)
            .withoutExemplars()
            .register(registry);
    taskRows =
        Counter.builder()
            .name("quiver_executor_output_rows_total")
            .help("Rows written by this executor's succeeded task attempts")
            .withoutExemplars()
            .register(registry);
    shuffleWritten =
        Counter.builder()
            .name("quiver_shuffle_written_bytes_total")
            .help("Arrow bytes of shuffle output written by succeeded task attempts")
            .withoutExemplars()
            .register(registry);
    shuffleFetched =
        Counter.builder()
            .name("quiver_shuffle_fetched_bytes_total")
            .help(
                "Arrow bytes of shuffle input tasks read, from this executor's own store (local)"
                    + " or from other executors over Flight (remote)")
            .labelNames("source")
            .withoutExemplars()
            .register(registry);
  }

  /** Registers the gauges read from the executor's parts at scrape time. */
  void watch(
      PrometheusRegistry registry,
      TaskManager tasks,
      ShuffleStore store,
      LongSupplier allocated,
      long memoryLimit) {
    GaugeWithCallback.builder()
        .name("quiver_executor_tasks_running")
        .help("Task attempts running on this executor")
        .callback(cb -> cb.call(tasks.runningTasks()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("quiver_executor_tasks_queued")
        .help("Task attempts launched here and waiting for a free slot")
        .callback(cb -> cb.call(Math.max(0, tasks.activeTasks() - tasks.runningTasks())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("quiver_memory_allocated_bytes")
        .help("Arrow memory this executor holds (tasks, shuffle output, transfers)")
        .callback(cb -> cb.call(allocated.getAsLong()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("quiver_memory_limit_bytes")
        .help("Arrow memory this executor may hold (--memory)")
        .callback(cb -> cb.call(memoryLimit))
        .register(registry);
    GaugeWithCallback.builder()
        .name("quiver_shuffle_stored_bytes")
        .help("Shuffle output this executor holds, by where")
        .labelNames("medium")
        .callback(
            cb -> {
              cb.call(store.memoryBytes(), "memory");
              cb.call(store.diskBytes(), "disk");
            })
        .register(registry);
    CounterWithCallback.builder()
        .name("quiver_shuffle_spilled_bytes_total")
        .help("Bytes of shuffle output spilled to disk because it was over its memory budget")
        .callback(cb -> cb.call(store.spilledBytesTotal()))
        .register(registry);
  }

  /** Counts a task attempt's end from the report sent to the scheduler. */
  void taskEnded(TaskStatusReport report) {
    String state = report.getState().name().replace("TASK_STATE_", "").toLowerCase(Locale.ROOT);
    tasksFinished.labelValues(state).inc();
    taskSeconds.labelValues(state).observe(report.getMetrics().getElapsedMillis() / 1000.0);
    if (state.equals("succeeded")) {
      taskRows.inc(report.getMetrics().getOutputRows());
      shuffleWritten.inc(report.getMetrics().getOutputBytes());
    }
  }

  /** Counts shuffle input read by a task. */
  void fetched(boolean local, long bytes) {
    shuffleFetched.labelValues(local ? "local" : "remote").inc(bytes);
  }
}
