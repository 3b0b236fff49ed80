package dev.quiver.binding.physical.operator;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Computes one output column per expression. */
public final class ProjectionExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final List<PhysicalExpr> exprs;
  private final List<String> names;

  /** Creates the operator; {@code names} gives each output column's name. */
  public ProjectionExec(ExecutionPlan input, List<PhysicalExpr> exprs, List<String> names) {
    super(schemaOf(exprs, names), List.of(input));
    this.input = input;
    this.exprs = List.copyOf(exprs);
    this.names = List.copyOf(names);
  }

  private static Schema schemaOf(List<PhysicalExpr> exprs, List<String> names) {
    if (exprs.size() != names.size()) {
      throw new IllegalArgumentException(
          exprs.size() + " expressions but " + names.size() + " names");
    }
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < exprs.size(); i++) {
      PhysicalExpr e = exprs.get(i);
      fields.add(e.field(names.get(i)));
    }
    return new Schema(fields);
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  /** The output expressions. */
  public List<PhysicalExpr> exprs() {
    return exprs;
  }

  /** The output column names. */
  public List<String> names() {
    return names;
  }

  /** Hash partitioning on input columns survives when every key column is passed through. */
  @Override
  public Partitioning outputPartitioning() {
    Partitioning in = input.outputPartitioning();
    if (in.kind() != Partitioning.Kind.HASH) {
      return in;
    }
    List<PhysicalExpr> mapped = new ArrayList<>();
    for (PhysicalExpr key : in.hashExprs()) {
      int found = -1;
      if (key instanceof ColumnExpr col) {
        for (int i = 0; i < exprs.size() && found < 0; i++) {
          if (exprs.get(i) instanceof ColumnExpr out && out.index() == col.index()) {
            found = i;
          }
        }
      }
      if (found < 0) {
        return Partitioning.unknown(in.partitionCount());
      }
      PhysicalExpr out = exprs.get(found);
      mapped.add(ColumnExpr.of(found, out.field(names.get(found))));
    }
    return Partitioning.hash(mapped, in.partitionCount());
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new ProjectionExec(children.get(0), exprs, names);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    BatchStream in = input.execute(partition, context);
    return new BatchStream() {
      @Override
      public Schema schema() {
        return ProjectionExec.this.schema();
      }

      @Override
      public VectorSchemaRoot next() {
        VectorSchemaRoot batch = in.next();
        if (batch == null) {
          return null;
        }
        try (VectorSchemaRoot owned = batch) {
          List<FieldVector> out = new ArrayList<>(exprs.size());
          try {
            for (int i = 0; i < exprs.size(); i++) {
              FieldVector v = exprs.get(i).evaluate(owned, context.allocator());
              out.add(v);
            }
          } catch (RuntimeException e) {
            out.forEach(FieldVector::close);
            throw e;
          }
          return renamed(out, owned.getRowCount());
        }
      }

      @Override
      public void close() {
        in.close();
      }
    };
  }

  /** Wraps the computed vectors under the output schema (names from the projection). */
  private VectorSchemaRoot renamed(List<FieldVector> vectors, int rows) {
    List<FieldVector> named = new ArrayList<>(vectors.size());
    List<Field> fields = schema().getFields();
    for (int i = 0; i < vectors.size(); i++) {
      FieldVector v = vectors.get(i);
      Field want = fields.get(i);
      if (v.getField().getName().equals(want.getName())
          && v.getField().getType().equals(want.getType())
          && v.getField().isNullable() == want.isNullable()
          && v.getField().getChildren().equals(want.getChildren())) {
        named.add(v);
      } else {
        org.apache.arrow.vector.util.TransferPair pair = v.getTransferPair(want, v.getAllocator());
        pair.transfer();
        v.close();
        named.add((FieldVector) pair.getTo());
      }
    }
    return new VectorSchemaRoot(schema(), named, rows);
  }

  @Override
  public String displayDetails() {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < exprs.size(); i++) {
      parts.add(exprs.get(i) + " AS " + names.get(i));
    }
    return "exprs=[" + String.join(", ", parts) + "]";
  }
}
