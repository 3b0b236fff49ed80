package dev.quiver.scheduler.job;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which of a job's tasks run next and in which order: a pure function of its stages' and tasks'
 * state, so that it is tested without a server. {@link SchedulingPass} applies the answer on the
 * job loop.
 *
 * <p>A stage's waiting tasks are ready once every input stage is complete; producers come before
 * their consumers. A stage whose consumers need at most a number of rows (a LIMIT above a gather)
 * runs in waves, as Spark's take() does ({@link Placement#nextWave}), and once the tasks that
 * succeeded wrote enough rows its other tasks are skipped: they never run, and the stage counts as
 * complete for its consumers at once.
 */
final class ReadyTasks {
  private ReadyTasks() {}

  /**
   * What to do for one job now.
   *
   * @param rowLimitsMet stages whose succeeded tasks wrote the rows their consumers need: their
   *     other tasks are to be cancelled and skipped (in the order found, producers first)
   * @param tasks the waiting tasks to launch, producers before consumers
   */
  record Ready(List<StageRun> rowLimitsMet, List<TaskRun> tasks) {}

  /** The ready tasks of {@code job}, found from its final stage; {@code job} is not changed. */
  static Ready of(Job job) {
    Set<StageRun> met = new LinkedHashSet<>();
    List<TaskRun> tasks = new ArrayList<>();
    collect(job.finalStage, new HashSet<>(), met, tasks);
    return new Ready(List.copyOf(met), tasks);
  }

  private static void collect(
      StageRun stage, Set<StageRun> visited, Set<StageRun> met, List<TaskRun> out) {
    if (!visited.add(stage) || complete(stage, met)) {
      return;
    }
    boolean inputsDone = true;
    for (StageRun input : stage.inputs) {
      collect(input, visited, met, out);
      inputsDone &= complete(input, met);
    }
    if (!inputsDone) {
      return;
    }
    if (stage.rowLimit < 0) {
      for (TaskRun t : stage.tasks) {
        if (t.phase == TaskRun.Phase.WAITING) {
          out.add(t);
        }
      }
    } else if (stage.rowsWritten() >= stage.rowLimit) {
      met.add(stage);
    } else {
      out.addAll(nextWave(stage));
    }
  }

  /** Complete now, or once the unfinished tasks of a stage whose row limit is met are skipped. */
  private static boolean complete(StageRun stage, Set<StageRun> met) {
    return met.contains(stage) || stage.complete();
  }

  /**
   * The tasks to run now of an unfinished stage under a row limit it has not met: none while a wave
   * runs (it decides how many run next), else the first {@link Placement#nextWave} waiting tasks.
   */
  private static List<TaskRun> nextWave(StageRun stage) {
    List<TaskRun> waiting = new ArrayList<>();
    int ran = 0;
    for (TaskRun t : stage.tasks) {
      switch (t.phase) {
        case WAITING -> waiting.add(t);
        case RUNNING -> {
          return List.of();
        }
        case SUCCEEDED -> {
          if (!t.skipped) {
            ran++;
          }
        }
      }
    }
    long wave = Placement.nextWave(stage.rowLimit, ran, stage.rowsWritten());
    return waiting.subList(0, (int) Math.min(waiting.size(), wave));
  }
}
