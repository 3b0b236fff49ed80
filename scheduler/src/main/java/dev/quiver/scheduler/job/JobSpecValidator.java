package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.ScanSplits;
import dev.quiver.distributed.proto.SplitList;
import dev.quiver.distributed.proto.StageSpec;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Checks a submitted stage graph before the scheduler accepts it. */
public final class JobSpecValidator {

  private JobSpecValidator() {}

  /**
   * Refuses a malformed job.
   *
   * @throws StatusRuntimeException INVALID_ARGUMENT naming the stage and the problem
   */
  public static void validate(JobSpec job) {
    if (job.getStagesCount() == 0) {
      throw invalid("the job has no stages; submit at least the final stage");
    }
    Map<Integer, StageSpec> byId = new HashMap<>();
    for (StageSpec stage : job.getStagesList()) {
      String name = "stage " + stage.getStageId();
      if (byId.putIfAbsent(stage.getStageId(), stage) != null) {
        throw invalid(name + " appears twice in the job; stage ids must be unique");
      }
      if (stage.getTaskCount() < 1) {
        throw invalid(name + " has task_count " + stage.getTaskCount() + "; it needs at least 1");
      }
      if (stage.getOutputPartitions() < 1) {
        throw invalid(
            name
                + " has output_partitions "
                + stage.getOutputPartitions()
                + "; every task writes at least 1 partition");
      }
      if (stage.getPlan().isEmpty()) {
        throw invalid(name + " has no plan bytes; encode its plan with the plan codec");
      }
      Set<Integer> seen = new HashSet<>();
      for (int input : stage.getInputStageIdsList()) {
        if (!seen.add(input)) {
          throw invalid(name + " lists input stage " + input + " twice");
        }
      }
      requireEverySplitOnce(stage, name);
      if (stage.hasRuntimeFilter()) {
        if (!seen.contains(stage.getRuntimeFilter().getInputStageId())) {
          throw invalid(
              name
                  + "'s runtime filter reads stage "
                  + stage.getRuntimeFilter().getInputStageId()
                  + ", which is not among its input stages");
        }
        if (stage.getRuntimeFilter().getPlan().isEmpty()) {
          throw invalid(name + "'s runtime filter has no plan bytes");
        }
      }
    }
    for (StageSpec stage : job.getStagesList()) {
      for (int input : stage.getInputStageIdsList()) {
        if (!byId.containsKey(input)) {
          throw invalid(
              "stage "
                  + stage.getStageId()
                  + " reads input stage "
                  + input
                  + ", which is not in the job");
        }
      }
    }
    if (!byId.containsKey(job.getFinalStageId())) {
      throw invalid(
          "final stage " + job.getFinalStageId() + " is not in the job; set final_stage_id");
    }
    requireAcyclic(job, byId);
    requireAllFeedFinal(job, byId);
  }

  /**
   * A scan whose splits are handed out at run time lists each of its splits for exactly one task:
   * otherwise a split would be read twice or never.
   */
  private static void requireEverySplitOnce(StageSpec stage, String name) {
    Set<Integer> scans = new HashSet<>();
    for (ScanSplits scan : stage.getScanSplitsList()) {
      String what = name + " scan " + scan.getScan();
      if (!scans.add(scan.getScan())) {
        throw invalid(what + " has its splits listed twice");
      }
      if (scan.getPlannedCount() != stage.getTaskCount()) {
        throw invalid(
            what
                + " plans splits for "
                + scan.getPlannedCount()
                + " tasks; the stage has "
                + stage.getTaskCount());
      }
      boolean[] listed = new boolean[scan.getSplitCount()];
      int count = 0;
      for (SplitList list : scan.getPlannedList()) {
        for (int split : list.getSplitsList()) {
          if (split < 0 || split >= listed.length || listed[split]) {
            throw invalid(
                what
                    + " plans split "
                    + Integer.toUnsignedString(split)
                    + (split >= 0 && split < listed.length ? " twice" : "")
                    + "; it has "
                    + listed.length
                    + " splits, each planned for one task");
          }
          listed[split] = true;
          count++;
        }
      }
      if (count != listed.length) {
        throw invalid(
            what + " plans " + count + " of its " + listed.length + " splits; plan every one");
      }
    }
  }

  /** A stage that no path leads from to the final stage would never be run. */
  private static void requireAllFeedFinal(JobSpec job, Map<Integer, StageSpec> byId) {
    Set<Integer> reached = new HashSet<>();
    List<Integer> todo = new ArrayList<>(List.of(job.getFinalStageId()));
    while (!todo.isEmpty()) {
      int id = todo.remove(todo.size() - 1);
      if (reached.add(id)) {
        todo.addAll(byId.get(id).getInputStageIdsList());
      }
    }
    for (StageSpec stage : job.getStagesList()) {
      if (!reached.contains(stage.getStageId())) {
        throw invalid(
            "stage "
                + stage.getStageId()
                + " does not feed final stage "
                + job.getFinalStageId()
                + "; drop it or list it among the inputs of a stage that does");
      }
    }
  }

  /** Depth-first search for a back edge: 0 = unvisited, 1 = on the path, 2 = done. */
  private static void requireAcyclic(JobSpec job, Map<Integer, StageSpec> byId) {
    Map<Integer, Integer> mark = new HashMap<>();
    for (StageSpec stage : job.getStagesList()) {
      List<Integer> path = new ArrayList<>();
      visit(stage.getStageId(), byId, mark, path);
    }
  }

  private static void visit(
      int id, Map<Integer, StageSpec> byId, Map<Integer, Integer> mark, List<Integer> path) {
    int m = mark.getOrDefault(id, 0);
    if (m == 2) {
      return;
    }
    path.add(id);
    if (m == 1) {
      List<Integer> cycle = path.subList(path.indexOf(id), path.size());
      throw invalid(
          "the stage graph has a cycle: stages "
              + cycle
              + " read each other's output; a job's stages must form a DAG");
    }
    mark.put(id, 1);
    for (int input : byId.get(id).getInputStageIdsList()) {
      visit(input, byId, mark, path);
    }
    mark.put(id, 2);
    path.remove(path.size() - 1);
  }

  private static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription("invalid job: " + message).asRuntimeException();
  }
}
