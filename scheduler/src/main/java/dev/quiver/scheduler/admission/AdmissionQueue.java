package dev.quiver.scheduler.admission;

import dev.quiver.scheduler.admission.ResourceGroups.Group;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Admission of jobs into their resource groups: a group runs at most {@code maxRunning} jobs at
 * once; the others wait in submission order, at most {@code maxQueued} of them, and a job finishing
 * admits the next. Jobs are named by id; one thread (the job loop) uses it.
 */
public final class AdmissionQueue {

  private final Map<String, Set<String>> running = new HashMap<>();
  private final Map<String, ArrayDeque<String>> queued = new HashMap<>();
  private final Map<String, Group> groupOf = new HashMap<>();

  /**
   * Admits job {@code jobId} into {@code group} when the group runs fewer jobs than its limit, or
   * queues it behind the group's waiting jobs.
   *
   * @return 0 when admitted, else the job's place in the queue (1 = next)
   * @throws StatusRuntimeException RESOURCE_EXHAUSTED when the group's queue is full, naming the
   *     group and its limit
   */
  public int offer(String jobId, Group group) {
    requireRoom(group);
    Set<String> runs = running.computeIfAbsent(group.name(), g -> new HashSet<>());
    ArrayDeque<String> waits = queued.computeIfAbsent(group.name(), g -> new ArrayDeque<>());
    groupOf.put(jobId, group);
    if (runs.size() < group.maxRunning() && waits.isEmpty()) {
      runs.add(jobId);
      return 0;
    }
    waits.addLast(jobId);
    return waits.size();
  }

  /**
   * Refuses a job of {@code group} when it could neither run nor wait.
   *
   * @throws StatusRuntimeException RESOURCE_EXHAUSTED naming the group and its limit
   */
  public void requireRoom(Group group) {
    Set<String> runs = running.getOrDefault(group.name(), Set.of());
    ArrayDeque<String> waits = queued.getOrDefault(group.name(), new ArrayDeque<>());
    boolean runsNow = runs.size() < group.maxRunning() && waits.isEmpty();
    if (!runsNow && waits.size() >= group.maxQueued()) {
      throw Status.RESOURCE_EXHAUSTED
          .withDescription(
              "resource group '"
                  + group.name()
                  + "' is full: "
                  + runs.size()
                  + " jobs run (maxRunning "
                  + group.maxRunning()
                  + ") and "
                  + waits.size()
                  + " wait, its limit (maxQueued "
                  + group.maxQueued()
                  + "); submit again later")
          .asRuntimeException();
    }
  }

  /**
   * Job {@code jobId} ended (or was released) whether it ran or waited: it leaves its group, and
   * when it ran, the jobs waiting first are admitted into the room it leaves.
   *
   * @return the jobs admitted now, in order
   */
  public List<String> finished(String jobId) {
    Group group = groupOf.remove(jobId);
    if (group == null) {
      return List.of();
    }
    queued.get(group.name()).remove(jobId);
    running.get(group.name()).remove(jobId);
    return admit(group);
  }

  private List<String> admit(Group group) {
    Set<String> runs = running.get(group.name());
    ArrayDeque<String> waits = queued.get(group.name());
    List<String> admitted = new ArrayList<>();
    while (runs.size() < group.maxRunning() && !waits.isEmpty()) {
      String next = waits.removeFirst();
      runs.add(next);
      admitted.add(next);
    }
    return admitted;
  }

  /** Whether job {@code jobId} has been admitted (unknown jobs have not). */
  public boolean admitted(String jobId) {
    Group g = groupOf.get(jobId);
    return g != null && running.get(g.name()).contains(jobId);
  }

  /** The place of {@code jobId} in its group's queue (1 = next), or 0 when it is not waiting. */
  public int position(String jobId) {
    Group g = groupOf.get(jobId);
    if (g == null) {
      return 0;
    }
    int i = 1;
    for (String id : queued.get(g.name())) {
      if (id.equals(jobId)) {
        return i;
      }
      i++;
    }
    return 0;
  }

  /** The jobs waiting in {@code group}, next first. */
  public List<String> waiting(String group) {
    ArrayDeque<String> waits = queued.get(group);
    return waits == null ? List.of() : List.copyOf(waits);
  }
}
