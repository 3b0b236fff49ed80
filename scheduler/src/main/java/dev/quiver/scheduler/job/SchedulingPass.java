package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.scheduler.admission.FairShare;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.time.SchedulerClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling pass, run on the job loop after every event that may free a slot or make a task
 * ready: it applies what the pure functions decide. {@link ReadyTasks} says which tasks of each job
 * are ready (skipping those a met row limit makes unnecessary), {@link Placement} where each goes,
 * and {@link Stragglers} which running tasks get a speculative copy in the slots left over; {@link
 * Attempts} launches and cancels.
 */
final class SchedulingPass {

  private static final Logger LOG = LoggerFactory.getLogger(SchedulingPass.class);
  private static final String NO_EXECUTORS = "no executors are registered with the scheduler";

  private final ExecutorRegistry registry;
  private final SchedulerClock clock;
  private final SchedulerConfig config;
  private final JobRegistry jobs;
  private final Attempts attempts;
  private final Set<String> unreachable;
  private final StatusPublisher status;
  private final Supplier<Set<String>> groupsOverMemoryShare;

  /** The executor picked last, for round-robin among equally good ones. */
  private String lastPicked = "";

  /**
   * A pass placing on {@code registry}'s schedulable executors except the {@code unreachable} ones
   * (a live view, kept by {@link Recovery}), launching no task of the groups {@code
   * groupsOverMemoryShare} names ({@link LimitChecks#groupsOverShare}).
   */
  SchedulingPass(
      ExecutorRegistry registry,
      SchedulerConfig config,
      JobRegistry jobs,
      Attempts attempts,
      Set<String> unreachable,
      StatusPublisher status,
      Supplier<Set<String>> groupsOverMemoryShare) {
    this.registry = registry;
    this.clock = registry.clock();
    this.config = config;
    this.jobs = jobs;
    this.attempts = attempts;
    this.unreachable = unreachable;
    this.status = status;
    this.groupsOverMemoryShare = groupsOverMemoryShare;
  }

  /**
   * Launches ready tasks of admitted jobs while executors have free slots: each free slot goes to
   * the resource group {@link FairShare} picks (the fewest running tasks for its weight), and
   * within a group to its jobs in submission order. Slots left over go to speculative copies of
   * stragglers. A job with ready tasks but no usable executor starts waiting for one (see {@link
   * Job#waitingSinceNanos}).
   */
  void run() {
    List<ExecutorInfo> usable = Placement.usable(registry.schedulable(), unreachable);
    Map<String, Integer> free = Placement.freeSlots(usable, attempts.running());
    Map<String, GroupTasks> byGroup = new LinkedHashMap<>();
    for (Job job : List.copyOf(jobs.live())) {
      if (job.terminal() || !job.admitted) {
        continue;
      }
      GroupTasks group = byGroup.computeIfAbsent(job.group.name(), g -> new GroupTasks(job));
      group.running += job.runningTasks();
      adapt(job);
      ReadyTasks.Ready ready = ReadyTasks.of(job);
      for (StageRun stage : ready.rowLimitsMet()) {
        skipUnfinished(stage);
      }
      if (ready.tasks().isEmpty() || !usable.isEmpty()) {
        job.waitingSinceNanos = -1;
      } else if (job.waitingSinceNanos < 0) {
        job.waitingSinceNanos = clock.nanoTime();
        LOG.warn("{} is waiting: {}", job.describe(), noUsableExecutors());
      }
      group.ready.addAll(ready.tasks());
    }
    List<GroupTasks> demanding = new ArrayList<>();
    Set<String> overMemory = groupsOverMemoryShare.get();
    for (GroupTasks g : byGroup.values()) {
      // A group holding its memory share waits for its running tasks to give memory back.
      if (!g.ready.isEmpty() && !overMemory.contains(g.name)) {
        demanding.add(g);
      }
    }
    while (!demanding.isEmpty() && Placement.hasFreeSlot(free)) {
      List<FairShare.Demand> demands = new ArrayList<>();
      for (GroupTasks g : demanding) {
        demands.add(new FairShare.Demand(g.weight, g.running, g.ready.peekFirst().stage.job.seq));
      }
      GroupTasks g = demanding.get(FairShare.next(demands));
      TaskRun task = g.ready.removeFirst();
      ExecutorInfo target = place(task, usable, free, null);
      if (target != null) {
        attempts.launch(task, target, false);
        g.running++;
      }
      if (g.ready.isEmpty()) {
        demanding.remove(g);
      }
    }
    if (Placement.hasFreeSlot(free)) {
      speculate(usable, free);
    }
  }

  /** A resource group's ready tasks this pass, in order, and its tasks running. */
  private static final class GroupTasks {
    final String name;
    final double weight;
    final ArrayDeque<TaskRun> ready = new ArrayDeque<>();
    int running;

    GroupTasks(Job first) {
      this.name = first.group.name();
      this.weight = first.group.weight();
    }
  }

  /**
   * Chooses the plan of each stage of {@code job} with a runtime filter ({@link
   * RuntimeFilterChoice}) and reshapes each stage from its inputs' real sizes ({@link
   * AdaptiveTasks}), once their inputs have completed and before any of its tasks is launched.
   */
  private void adapt(Job job) {
    for (StageRun stage : job.stages.values()) {
      if (stage.filterable()) {
        stage.filterDecided = true;
        stage.adaptiveNote = RuntimeFilterChoice.apply(stage);
        status.changed(job);
        LOG.info("{}: stage {}: {}", job.describe(), stage.id(), stage.adaptiveNote);
      }
      if (!stage.adaptable()) {
        continue;
      }
      stage.adapted = true;
      AdaptiveTasks.of(stage)
          .ifPresent(
              reshape -> {
                stage.reshape(reshape);
                status.changed(job);
                LOG.info("{}: stage {}: {}", job.describe(), stage.id(), reshape.note());
              });
    }
  }

  /** Why no task can be placed: no executor at all, or why each alive one takes none. */
  String noUsableExecutors() {
    String why = registry.whyNoneSchedulable();
    return why.isEmpty() ? NO_EXECUTORS : "no executor can take tasks: " + why;
  }

  /**
   * The tasks of {@code stage} that succeeded wrote the rows its consumers need: the others are
   * cancelled or never run. They are skipped, and their consumers read nothing from them.
   */
  private void skipUnfinished(StageRun stage) {
    int ran = 0;
    for (TaskRun t : stage.tasks) {
      if (t.phase == TaskRun.Phase.SUCCEEDED && !t.skipped) {
        ran++;
      }
    }
    Map<String, List<TaskId>> batch = new LinkedHashMap<>();
    int skipping = 0;
    for (TaskRun t : stage.tasks) {
      if (t.phase != TaskRun.Phase.SUCCEEDED) {
        attempts.cancel(t, batch);
        t.skip();
        skipping++;
      }
    }
    attempts.sendCancels(stage.job, batch, "its stage's row limit is met");
    if (skipping > 0) {
      status.changed(stage.job);
      LOG.info(
          "{}: stage {} has the {} rows its consumer needs from {} of its {} tasks; skipping"
              + " the other {}",
          stage.job.describe(),
          stage.id(),
          stage.rowLimit,
          ran,
          stage.tasks.size(),
          skipping);
    }
  }

  /**
   * The executor {@link Placement#choose} picks for {@code task}, whose slot it takes; {@code busy}
   * (may be null) is an executor the task already runs on. Null when none can take it now.
   */
  private ExecutorInfo place(
      TaskRun task, List<ExecutorInfo> usable, Map<String, Integer> free, String busy) {
    ExecutorInfo pick =
        Placement.choose(
            usable, free, task.failedOn, Placement.inputBytesByExecutor(task), busy, lastPicked);
    if (pick != null) {
      lastPicked = pick.getExecutorId();
      free.merge(pick.getExecutorId(), -1, Integer::sum);
    }
    return pick;
  }

  /**
   * Launches a second attempt, on another executor, of every straggler while slots are free; the
   * first attempt to succeed wins and the other is cancelled.
   */
  private void speculate(List<ExecutorInfo> usable, Map<String, Integer> free) {
    long now = clock.nanoTime();
    for (Stragglers.Straggler s : Stragglers.find(jobs.live(), config.speculation(), now)) {
      if (!Placement.hasFreeSlot(free)) {
        return;
      }
      TaskRun.Attempt slow = s.slow();
      ExecutorInfo target = place(s.task(), usable, free, slow.executorId());
      if (target != null) {
        LOG.info(
            "{}: {} has run {} ms on executor '{}', over {} ms ({} x the median of its"
                + " stage's finished tasks): launching a speculative copy on '{}'",
            s.task().stage.job.describe(),
            s.task().describe(slow),
            TimeUnit.NANOSECONDS.toMillis(now - slow.launchedNanos()),
            slow.executorId(),
            TimeUnit.NANOSECONDS.toMillis(s.thresholdNanos()),
            config.speculation().multiplier(),
            target.getExecutorId());
        attempts.launch(s.task(), target, true);
      }
    }
  }
}
