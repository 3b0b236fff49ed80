package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.TaskState;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Locale;

/** What the job manager counts and times, as Prometheus metrics (all named {@code quiver_*}). */
public final class JobMetrics {
  // Without exemplars: sampling them starts Prometheus' static scheduler thread, which outlives
  // every cluster (mvn exec:java then waits 15 s for it) and Quiver has no traces to link.
  private final Counter submitted;
  private final Counter finished;
  private final Histogram jobSeconds;
  private final Histogram taskSeconds;
  private final Counter retries;
  private final Counter executorsLost;

  /** Registers the job metrics in {@code registry}. */
  public JobMetrics(PrometheusRegistry registry) {
    submitted =
        Counter.builder()
            .name("quiver_jobs_submitted_total")
            .help("Jobs submitted to the scheduler")
            .withoutExemplars()
            .register(registry);
    finished =
        Counter.builder()
            .name("quiver_jobs_finished_total")
            .help("Jobs that ended, by final state (succeeded, failed, cancelled)")
            .labelNames("state")
            .withoutExemplars()
            .register(registry);
    jobSeconds =
        Histogram.builder()
            .name("quiver_job_duration_seconds")
            .help("Time from a job's submission to its end, by final state")
            .labelNames("state")
            .classicOnly()
            .classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600)
            .withoutExemplars()
            .register(registry);
    taskSeconds =
        Histogram.builder()
            .name("quiver_task_duration_seconds")
            .help("Time from a task attempt's launch to its report, by how it ended")
            .labelNames("state")
            .classicOnly()
            .classicUpperBounds(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)
            .withoutExemplars()
            .register(registry);
    retries =
        Counter.builder()
            .name("quiver_task_retries_total")
            .help("Task attempts launched after the first attempt of their task")
            .withoutExemplars()
            .register(registry);
    executorsLost =
        Counter.builder()
            .name("quiver_executors_lost_total")
            .help(
                "Executors declared lost (no heartbeat, broken connection, unreachable, or"
                    + " registered again after a restart)")
            .withoutExemplars()
            .register(registry);
  }

  /** Metrics kept in a registry nobody scrapes (a scheduler without an HTTP endpoint). */
  public static JobMetrics unexposed() {
    return new JobMetrics(new PrometheusRegistry());
  }

  void jobSubmitted() {
    submitted.inc();
  }

  void jobFinished(JobState state, long nanos) {
    String label = label(state.name(), "JOB_STATE_");
    finished.labelValues(label).inc();
    jobSeconds.labelValues(label).observe(nanos / 1e9);
  }

  void taskEnded(TaskState state, long nanos) {
    taskSeconds.labelValues(label(state.name(), "TASK_STATE_")).observe(nanos / 1e9);
  }

  void taskRetried() {
    retries.inc();
  }

  void executorLost() {
    executorsLost.inc();
  }

  private static String label(String name, String prefix) {
    return name.substring(prefix.length()).toLowerCase(Locale.ROOT);
  }
}
