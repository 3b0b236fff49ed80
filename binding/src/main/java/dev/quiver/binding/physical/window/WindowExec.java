package dev.quiver.binding.physical.window;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Window functions over input sorted by each call's partition keys then order keys: emits the input
 * columns plus one column per call. Each input partition is processed independently.
 */
public final class WindowExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final List<WindowCall> calls;

  /** Creates the operator. */
  public WindowExec(ExecutionPlan input, List<WindowCall> calls) {
    super(outputSchema(input.schema(), calls), List.of(input));
    for (WindowCall call : calls) {
      validate(call);
    }
    this.input = input;
    this.calls = List.copyOf(calls);
  }

  /** Input fields followed by one field per call. */
  public static Schema outputSchema(Schema input, List<WindowCall> calls) {
    List<Field> fields = new ArrayList<>(input.getFields());
    for (WindowCall call : calls) {
      fields.add(outputField(call));
    }
    return new Schema(fields);
  }

  static Field outputField(WindowCall call) {
    boolean nullable =
        switch (call.function()) {
          case ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, COUNT -> false;
          default -> true;
        };
    return new Field(call.name(), new FieldType(nullable, call.returnType(), null), null);
  }

  private static void validate(WindowCall call) {
    int min =
        switch (call.function()) {
          case ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, COUNT -> 0;
          default -> 1;
        };
    if (call.args().size() < min) {
      throw new QueryTypeException(
          "Window function " + call.function() + " in " + call.name() + " needs an argument");
    }
    switch (call.function()) {
      case LAG, LEAD, FIRST_VALUE, LAST_VALUE, MIN, MAX -> {
        if (!call.args().get(0).dataType().equals(call.returnType())) {
          throw new QueryTypeException(
              "Window function "
                  + call.function()
                  + " in "
                  + call.name()
                  + " returns its argument's type "
                  + call.args().get(0).dataType()
                  + ", not "
                  + call.returnType()
                  + "; cast the argument instead");
        }
      }
      default -> {}
    }
    WindowFrame f = call.frame();
    if (f != null
        && !f.rows()
        && !call.orderBy().isEmpty()
        && call.orderBy().size() != 1
        && (hasOffset(f.start()) || hasOffset(f.end()))) {
      throw new QueryTypeException(
          "RANGE frames with an offset need exactly one ORDER BY key in "
              + call.name()
              + "; use ROWS or order by a single numeric column");
    }
  }

  private static boolean hasOffset(WindowFrame.Bound b) {
    return b.kind() == WindowFrame.BoundKind.PRECEDING
        || b.kind() == WindowFrame.BoundKind.FOLLOWING;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  /** The window calls, one output column each. */
  public List<WindowCall> calls() {
    return calls;
  }

  @Override
  public Partitioning outputPartitioning() {
    return input.outputPartitioning();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (children.size() != 1) {
      throw new IllegalArgumentException("WindowExec takes one child, got " + children.size());
    }
    return new WindowExec(children.get(0), calls);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new WindowStream(this, partition, context);
  }

  @Override
  public String displayDetails() {
    return "[" + calls.stream().map(WindowExec::describe).collect(Collectors.joining(", ")) + "]";
  }

  private static String describe(WindowCall c) {
    StringBuilder sb = new StringBuilder();
    sb.append(c.function())
        .append('(')
        .append(c.args().stream().map(Object::toString).collect(Collectors.joining(", ")))
        .append(") OVER (");
    if (!c.partitionBy().isEmpty()) {
      sb.append("PARTITION BY ")
          .append(c.partitionBy().stream().map(Object::toString).collect(Collectors.joining(", ")));
    }
    if (!c.orderBy().isEmpty()) {
      sb.append(c.partitionBy().isEmpty() ? "" : " ")
          .append("ORDER BY ")
          .append(c.orderBy().stream().map(Object::toString).collect(Collectors.joining(", ")));
    }
    if (c.frame() != null) {
      WindowFrame f = c.frame();
      sb.append(c.partitionBy().isEmpty() && c.orderBy().isEmpty() ? "" : " ")
          .append(f.rows() ? "ROWS" : "RANGE")
          .append(" BETWEEN ")
          .append(bound(f.start()))
          .append(" AND ")
          .append(bound(f.end()));
    }
    return sb.append(") as ").append(c.name()).toString();
  }

  private static String bound(WindowFrame.Bound b) {
    return switch (b.kind()) {
      case UNBOUNDED_PRECEDING -> "UNBOUNDED PRECEDING";
      case PRECEDING -> b.offset() + " PRECEDING";
      case CURRENT_ROW -> "CURRENT ROW";
      case FOLLOWING -> b.offset() + " FOLLOWING";
      case UNBOUNDED_FOLLOWING -> "UNBOUNDED FOLLOWING";
    };
  }
}
