package dev.quiver.scheduler.job;

import dev.quiver.scheduler.config.Speculation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Which running tasks get a speculative copy (Spark's speculation): a pure function of the jobs'
 * task state and the time, so that it is tested without a server. {@link SchedulingPass} places and
 * launches the copies on the job loop while slots are free.
 */
final class Stragglers {
  private Stragglers() {}

  /**
   * A task whose only running attempt is much slower than its stage's finished tasks.
   *
   * @param slow the attempt running too long
   * @param thresholdNanos how long its stage's attempts may run before they count as slow
   */
  record Straggler(TaskRun task, TaskRun.Attempt slow, long thresholdNanos) {}

  /**
   * The stragglers of the unfinished {@code jobs} at {@code nowNanos}, jobs in the order given,
   * then stages and tasks in order: once a quantile of a stage's tasks succeeded, a task running
   * alone for longer than a multiple of their median (and a minimum) is one. A task already racing
   * a copy is not. Empty when {@code policy} is off.
   */
  static List<Straggler> find(Collection<Job> jobs, Speculation policy, long nowNanos) {
    List<Straggler> out = new ArrayList<>();
    if (!policy.enabled()) {
      return out;
    }
    for (Job job : jobs) {
      if (job.terminal()) {
        continue;
      }
      for (StageRun stage : job.stages.values()) {
        long threshold = stage.speculationThresholdNanos(policy);
        if (threshold < 0) {
          continue;
        }
        for (TaskRun task : stage.tasks) {
          if (task.phase != TaskRun.Phase.RUNNING || task.running.size() != 1) {
            continue;
          }
          TaskRun.Attempt slow = task.running.get(0);
          if (nowNanos - slow.launchedNanos() > threshold) {
            out.add(new Straggler(task, slow, threshold));
          }
        }
      }
    }
    return out;
  }
}
