package dev.quiver.binding.sql;

import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.dataframe.DataFrameOps;
import dev.quiver.binding.dataframe.Expr;
import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.datasource.FileWriters;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.format.TableFormatter;
import dev.quiver.binding.logical.LogicalPlan;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.planner.PlanFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;

/** The binding's {@link DataFrame}: a logical tree of its session, planned when an action runs. */
public final class DataFrameImpl implements DataFrame {
  private final SessionState session;
  private final RelNode rel;

  /** Wraps {@code rel}, a tree built on {@code session}'s cluster. */
  public DataFrameImpl(SessionState session, RelNode rel) {
    this.session = session;
    this.rel = rel;
  }

  /** The (unoptimized) logical tree. */
  public RelNode rel() {
    return rel;
  }

  /** The session this DataFrame belongs to. */
  public SessionState session() {
    return session;
  }

  private DataFrame derive(Function<RelBuilder, RelNode> op) {
    RelNode next = session.planning(() -> op.apply(session.pipeline().relBuilder()));
    return new DataFrameImpl(session, next);
  }

  private RelNode other(DataFrame df) {
    if (df instanceof DataFrameImpl o && o.session == session) {
      return o.rel;
    }
    throw new QuiverException(
        "Cannot combine DataFrames of different sessions; register the other one's data in this"
            + " session");
  }

  @Override
  public DataFrame select(Expr... exprs) {
    return derive(b -> DataFrameOps.select(b, rel, List.of(exprs)));
  }

  @Override
  public DataFrame select(String... columns) {
    return derive(
        b -> {
          b.push(rel);
          List<RexNode> fields = new ArrayList<>();
          for (String c : columns) {
            RelDataTypeField f = rel.getRowType().getField(c, false, false);
            if (f == null) {
              throw new UnknownColumnException(
                  c, Suggestions.closest(c, rel.getRowType().getFieldNames()));
            }
            fields.add(b.field(f.getIndex()));
          }
          List<String> names = new ArrayList<>();
          for (RexNode f : fields) {
            names.add(
                rel.getRowType()
                    .getFieldNames()
                    .get(((org.apache.calcite.rex.RexInputRef) f).getIndex()));
          }
          return b.project(fields, names, true).build();
        });
  }

  @Override
  public DataFrame filter(Expr predicate) {
    return derive(b -> DataFrameOps.filter(b, rel, predicate));
  }

  @Override
  public DataFrame aggregate(List<Expr> groupBy, List<Expr> aggregates) {
    return derive(b -> DataFrameOps.aggregate(b, rel, groupBy, aggregates));
  }

  @Override
  public DataFrame join(
      DataFrame right, JoinType type, List<String> leftColumns, List<String> rightColumns) {
    RelNode r = other(right);
    return derive(b -> DataFrameOps.join(b, rel, r, type, leftColumns, rightColumns));
  }

  @Override
  public DataFrame join(DataFrame right, JoinType type, Expr on) {
    RelNode r = other(right);
    return derive(b -> DataFrameOps.join(b, rel, r, type, on));
  }

  @Override
  public DataFrame sort(Expr... keys) {
    return derive(b -> DataFrameOps.sort(b, rel, List.of(keys)));
  }

  @Override
  public DataFrame limit(long fetch) {
    return limit(0, fetch);
  }

  @Override
  public DataFrame limit(long offset, long fetch) {
    return derive(b -> DataFrameOps.limit(b, rel, offset, fetch));
  }

  @Override
  public DataFrame union(DataFrame other) {
    RelNode o = other(other);
    return derive(b -> DataFrameOps.union(b, rel, o));
  }

  @Override
  public DataFrame distinct() {
    return derive(b -> DataFrameOps.distinct(b, rel));
  }

  /** Plans the query and starts it; the caller closes the execution. */
  public QueryExecution start() {
    ExecutionPlan plan = session.physicalPlan(logicalPlan());
    return session.execute(plan);
  }

  @Override
  public List<VectorSchemaRoot> collect() {
    try (QueryExecution q = start()) {
      return q.collect(session.allocator());
    }
  }

  @Override
  public ArrowReader executeStream() {
    return new QueryReader(start(), session.allocator());
  }

  @Override
  public long count() {
    long rows = 0;
    try (QueryExecution q = start()) {
      VectorSchemaRoot batch;
      while ((batch = q.next()) != null) {
        rows += batch.getRowCount();
        batch.close();
      }
    }
    return rows;
  }

  @Override
  public void show() {
    show(20);
  }

  @Override
  public void show(int maxRows) {
    System.out.println(showString(maxRows));
  }

  /** The text {@link #show(int)} prints. */
  public String showString(int maxRows) {
    List<VectorSchemaRoot> batches = collect();
    try {
      return TableFormatter.format(schema(), batches, maxRows);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  @Override
  public Schema schema() {
    return TypeMapping.toArrowSchema(rel.getRowType());
  }

  @Override
  public String explain() {
    return explain(false);
  }

  @Override
  public String explain(boolean analyze) {
    LogicalPlan logical = logicalPlan();
    ExecutionPlan physical = session.physicalPlan(logical);
    if (analyze) {
      try (QueryExecution q = session.execute(physical)) {
        VectorSchemaRoot batch;
        while ((batch = q.next()) != null) {
          batch.close();
        }
        physical = q.root();
      }
    }
    return "Logical plan:\n"
        + logical.explain()
        + "Physical plan:\n"
        + PlanFormatter.format(physical, analyze);
  }

  @Override
  public void writeParquet(String path) {
    try (ArrowReader reader = executeStream()) {
      FileWriters.writeParquet(
          reader,
          path,
          session.config(),
          session.allocator(),
          FileWriters.DEFAULT_PARQUET_FILE_BYTES);
    } catch (java.io.IOException e) {
      throw new QuiverException("Writing Parquet to " + path + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void writeCsv(String path) {
    try (ArrowReader reader = executeStream()) {
      FileWriters.writeCsv(reader, path, session.config(), ',');
    } catch (java.io.IOException e) {
      throw new QuiverException("Writing CSV to " + path + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public LogicalPlan logicalPlan() {
    return session.logicalPlan(rel);
  }

  @Override
  public String toString() {
    return "DataFrame" + schema();
  }
}
