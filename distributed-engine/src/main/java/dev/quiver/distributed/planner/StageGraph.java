package dev.quiver.distributed.planner;

import dev.quiver.binding.physical.ExecutionPlan;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The stages of one query in dependency order (every stage after its inputs); the last one is the
 * final stage, whose outputs the client reads.
 */
public record StageGraph(List<Stage> stages) {

  /** Validates and freezes the stages. */
  public StageGraph {
    if (stages.isEmpty()) {
      throw new IllegalArgumentException("a stage graph has at least one stage");
    }
    stages = List.copyOf(stages);
  }

  /** The stage whose outputs are the query's result. */
  public Stage finalStage() {
    return stages.get(stages.size() - 1);
  }

  /** The stage with id {@code id}. */
  public Stage stage(int id) {
    for (Stage s : stages) {
      if (s.id() == id) {
        return s;
      }
    }
    throw new IllegalArgumentException("no stage " + id);
  }

  /** The stages that read stage {@code id}'s output. */
  public List<Stage> consumers(int id) {
    return stages.stream().filter(s -> s.inputStageIds().contains(id)).toList();
  }

  /** Renders the stage tree, the final stage first, each stage's plan indented under it. */
  public String explain() {
    return explain(Map.of());
  }

  /**
   * Renders the stage tree with a line of extra text (e.g. measured metrics) under each stage that
   * has one.
   */
  public String explain(Map<Integer, String> extraByStage) {
    StringBuilder sb = new StringBuilder();
    Map<Integer, Stage> byId = new TreeMap<>();
    stages.forEach(s -> byId.put(s.id(), s));
    append(sb, finalStage(), byId, extraByStage, new HashSet<>(), 0);
    return sb.toString();
  }

  private static void append(
      StringBuilder sb,
      Stage stage,
      Map<Integer, Stage> byId,
      Map<Integer, String> extra,
      Set<Integer> shown,
      int depth) {
    String pad = "  ".repeat(depth);
    if (!shown.add(stage.id())) {
      // A stage several consumers read (a reused exchange) is shown in full once.
      sb.append(pad).append("Stage ").append(stage.id()).append(": reused, shown above\n");
      return;
    }
    sb.append(pad)
        .append("Stage ")
        .append(stage.id())
        .append(": tasks=")
        .append(stage.taskCount())
        .append(", boundary=")
        .append(stage.boundary())
        .append(", output=")
        .append(stage.output())
        .append(stage.outputRowLimit() >= 0 ? ", row limit=" + stage.outputRowLimit() : "")
        .append('\n');
    String more = extra.get(stage.id());
    if (more != null) {
      for (String line : more.split("\n")) {
        sb.append(pad).append("  | ").append(line).append('\n');
      }
    }
    appendPlan(sb, stage.root(), depth + 2);
    for (int input : stage.inputStageIds()) {
      append(sb, byId.get(input), byId, extra, shown, depth + 1);
    }
  }

  /** A stage's plan as indented text, one operator a line. */
  public static String planText(ExecutionPlan root) {
    StringBuilder sb = new StringBuilder();
    appendPlan(sb, root, 0);
    return sb.toString();
  }

  private static void appendPlan(StringBuilder sb, ExecutionPlan plan, int depth) {
    sb.append("  ".repeat(depth)).append(plan.name());
    if (!plan.tableName().isEmpty()) {
      sb.append(" table=").append(plan.tableName());
    }
    String details = plan.displayDetails();
    if (details != null && !details.isEmpty()) {
      sb.append(": ").append(details);
    }
    sb.append(" [partitions=").append(plan.partitionCount()).append("]\n");
    for (ExecutionPlan child : plan.children()) {
      appendPlan(sb, child, depth + 1);
    }
  }

  /** The stage graph as a Graphviz DOT digraph (an edge per producer → consumer). */
  public String toDot() {
    StringBuilder sb = new StringBuilder("digraph stages {\n  rankdir=BT;\n  node [shape=box];\n");
    for (Stage s : stages) {
      sb.append("  s")
          .append(s.id())
          .append(" [label=\"Stage ")
          .append(s.id())
          .append("\\ntasks=")
          .append(s.taskCount())
          .append("\\n")
          .append(escape(s.root().name()))
          .append("\"];\n");
    }
    for (Stage s : stages) {
      for (Stage consumer : consumers(s.id())) {
        sb.append("  s")
            .append(s.id())
            .append(" -> s")
            .append(consumer.id())
            .append(" [label=\"")
            .append(s.boundary())
            .append("\"];\n");
      }
    }
    Stage last = finalStage();
    sb.append("  client [shape=ellipse];\n  s")
        .append(last.id())
        .append(" -> client [label=\"RESULT\"];\n");
    return sb.append("}\n").toString();
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
