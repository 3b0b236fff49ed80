package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hash aggregation (GROUP BY) in PARTIAL, FINAL or SINGLE mode. Each input partition is aggregated
 * independently; FINAL and SINGLE spill partial states to disk under memory pressure, PARTIAL emits
 * its groups early instead.
 */
public final class HashAggregateExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final AggregateMode mode;
  private final List<PhysicalExpr> groupExprs;
  private final List<String> groupNames;
  private final List<AggregateCall> aggregates;

  /** Creates the operator. */
  public HashAggregateExec(
      ExecutionPlan input,
      AggregateMode mode,
      List<PhysicalExpr> groupExprs,
      List<String> groupNames,
      List<AggregateCall> aggregates) {
    super(outputSchema(mode, groupExprs, groupNames, aggregates), List.of(input));
    if (groupExprs.size() != groupNames.size()) {
      throw new IllegalArgumentException(
          "HashAggregateExec needs one name per group expression: "
              + groupExprs
              + " vs "
              + groupNames);
    }
    for (AggregateCall call : aggregates) {
      if (call.needsRawRows() && mode != AggregateMode.SINGLE) {
        throw new QuiverException(
            "Aggregate "
                + call.name()
                + " needs all rows of a group at once "
                + "(DISTINCT, a percentile or an ordered string_agg), which runs in SINGLE mode only; "
                + "plan it as a SINGLE aggregation after an exchange on the group keys");
      }
    }
    this.input = input;
    this.mode = mode;
    this.groupExprs = List.copyOf(groupExprs);
    this.groupNames = List.copyOf(groupNames);
    this.aggregates = List.copyOf(aggregates);
  }

  /** The state columns PARTIAL emits (and FINAL reads) for {@code call}, in order. */
  public static List<Field> stateFields(AggregateCall call) {
    return Accumulators.stateFields(call);
  }

  /** Output schema for the given mode: group columns, then per call its states or its value. */
  public static Schema outputSchema(
      AggregateMode mode,
      List<PhysicalExpr> groupExprs,
      List<String> groupNames,
      List<AggregateCall> aggregates) {
    List<Field> fields = new ArrayList<>(groupKeyFields(groupExprs, groupNames));
    for (AggregateCall call : aggregates) {
      if (mode == AggregateMode.PARTIAL) {
        fields.addAll(stateFields(call));
      } else {
        fields.add(Accumulators.outputField(call));
      }
    }
    return new Schema(fields);
  }

  static List<Field> groupKeyFields(List<PhysicalExpr> groupExprs, List<String> groupNames) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < groupExprs.size(); i++) {
      fields.add(
          new Field(groupNames.get(i), FieldType.nullable(groupExprs.get(i).dataType()), null));
    }
    return fields;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  /** The aggregation mode. */
  public AggregateMode mode() {
    return mode;
  }

  /** Group-by expressions over the input. */
  public List<PhysicalExpr> groupExprs() {
    return groupExprs;
  }

  /** Output names of the group columns. */
  public List<String> groupNames() {
    return groupNames;
  }

  /** The aggregate calls. */
  public List<AggregateCall> aggregates() {
    return aggregates;
  }

  /**
   * One output partition per input partition. When FINAL/SINGLE input is hash-partitioned on
   * exactly the group expressions, the output stays hash-partitioned on the group columns.
   */
  @Override
  public Partitioning outputPartitioning() {
    Partitioning in = input.outputPartitioning();
    if (mode != AggregateMode.PARTIAL
        && in.kind() == Partitioning.Kind.HASH
        && !groupExprs.isEmpty()
        && in.hashExprs().equals(groupExprs)) {
      List<PhysicalExpr> keys = new ArrayList<>();
      for (int i = 0; i < groupExprs.size(); i++) {
        keys.add(new ColumnExpr(i, groupNames.get(i), groupExprs.get(i).dataType(), true));
      }
      return Partitioning.hash(keys, in.partitionCount());
    }
    return Partitioning.unknown(in.partitionCount());
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (children.size() != 1) {
      throw new IllegalArgumentException(
          "HashAggregateExec takes one child, got " + children.size());
    }
    return new HashAggregateExec(children.get(0), mode, groupExprs, groupNames, aggregates);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new AggregateStream(this, partition, context);
  }

  @Override
  public String displayDetails() {
    List<String> g = new ArrayList<>();
    for (int i = 0; i < groupExprs.size(); i++) {
      g.add(groupExprs.get(i) + " as " + groupNames.get(i));
    }
    String aggs =
        aggregates.stream()
            .map(
                c ->
                    c.function()
                        + "("
                        + (c.distinct() ? "DISTINCT " : "")
                        + (c.args().isEmpty()
                            ? "*"
                            : c.args().stream()
                                .map(Object::toString)
                                .collect(Collectors.joining(", ")))
                        + ")"
                        + (c.filter() != null ? " FILTER (WHERE " + c.filter() + ")" : "")
                        + " as "
                        + c.name())
            .collect(Collectors.joining(", "));
    return "mode=" + mode + ", gby=[" + String.join(", ", g) + "], aggr=[" + aggs + "]";
  }
}
