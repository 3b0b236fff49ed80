package dev.quiver.binding.planner;

import static dev.quiver.binding.planner.PhysicalPlans.column;
import static dev.quiver.binding.planner.PhysicalPlans.single;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.datasource.ScanRequest;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.logical.QuiverScan;
import dev.quiver.binding.logical.RelLogicalPlan;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.operator.EmptyExec;
import dev.quiver.binding.physical.operator.FilterExec;
import dev.quiver.binding.physical.operator.LimitExec;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.physical.operator.UnionExec;
import dev.quiver.binding.physical.operator.ValuesExec;
import dev.quiver.binding.physical.sort.SortExec;
import dev.quiver.binding.physical.sort.SortPreservingMergeExec;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.TimestampString;

/**
 * Plans one query: holds the per-query translator and settings, plans scans, projections, values,
 * sorts, limits and unions itself and hands aggregates, joins and windows to their planners.
 */
final class PlanBuilder {
  private final RexTranslator translator;
  private final SessionConfig config;
  final int partitions;
  final long collectThreshold;

  /** Whether SEMI/ANTI joins may share marks of a gathered left input across partitions. */
  final boolean sharedJoinMarks;

  final boolean mergedJoinMarks;

  /** The query's memory limit in bytes, {@code Long.MAX_VALUE} when unbounded. */
  final long memoryLimit;

  final RexBuilder rexBuilder;
  final RelMetadataQuery mq;
  private final AggregatePlanner aggregates;
  private final JoinPlanner joins;
  private final WindowPlanner windows;
  private final SharedSubplans shared;

  PlanBuilder(RelLogicalPlan plan, SessionConfig config) {
    this.translator = new RexTranslator(plan.udfs());
    this.config = config;
    this.partitions = config.targetPartitions();
    this.collectThreshold = config.get(BindingSettings.COLLECT_BUILD_THRESHOLD_ROWS);
    this.sharedJoinMarks = config.get(BindingSettings.SHARED_JOIN_MARKS);
    this.mergedJoinMarks = config.get(BindingSettings.MERGED_JOIN_MARKS);
    this.memoryLimit = config.memoryLimit();
    this.rexBuilder = plan.rel().getCluster().getRexBuilder();
    this.mq = plan.rel().getCluster().getMetadataQuery();
    this.aggregates = new AggregatePlanner(this);
    this.joins = new JoinPlanner(this);
    this.windows = new WindowPlanner(this);
    this.shared =
        config.get(BindingSettings.SHARE_SUBPLANS)
            ? SharedSubplans.of(plan.rel())
            : SharedSubplans.NONE;
  }

  /**
   * Plans {@code rel}; a subplan the query reads more than once is planned once, as one shared node
   * (see {@link SharedSubplans}).
   */
  ExecutionPlan plan(RelNode rel) {
    return shared.plan(rel, () -> planNode(rel));
  }

  private ExecutionPlan planNode(RelNode rel) {
    if (rel instanceof QuiverScan s) {
      return scan(s, OptionalLong.empty());
    } else if (rel instanceof Filter f) {
      ExecutionPlan input = plan(f.getInput());
      return new FilterExec(input, translate(f.getCondition(), f.getInput().getRowType()));
    } else if (rel instanceof Project p) {
      return project(p);
    } else if (rel instanceof Aggregate a) {
      return aggregates.plan(a);
    } else if (rel instanceof Join j) {
      return joins.plan(j);
    } else if (rel instanceof Sort s) {
      return sort(s);
    } else if (rel instanceof Union u) {
      return union(u);
    } else if (rel instanceof Values v) {
      return values(v);
    } else if (rel instanceof Window w) {
      return windows.plan(w);
    } else if (rel instanceof Correlate) {
      throw new QuiverException(
          "This correlated subquery could not be turned into a join (a Correlate remained after"
              + " decorrelation); rewrite it with an explicit join or an uncorrelated subquery");
    }
    throw new QuiverException(
        "Cannot plan logical operator "
            + rel.getRelTypeName()
            + " ("
            + RelOptUtil.toString(rel).strip()
            + "); this SQL construct is not supported");
  }

  PhysicalExpr translate(RexNode node, RelDataType inputType) {
    return translator.translate(RexUtil.expandSearch(rexBuilder, null, node), inputType);
  }

  // ---- scans, projections, values -------------------------------------------------------

  private ExecutionPlan scan(QuiverScan s, OptionalLong limit) {
    RelDataType full = s.getTable().getRowType();
    List<PhysicalExpr> filters = new ArrayList<>();
    for (RexNode f : s.filters()) {
      filters.add(translate(f, full));
    }
    ScanRequest request = new ScanRequest(s.projection(), filters, limit, partitions, config);
    ExecutionPlan scan = s.providerTable().provider().scan(request);
    nameTable(scan, String.join(".", s.getTable().getQualifiedName()));
    return scan;
  }

  /** Names the table on the leaves of what a provider planned for its scan (plans show it). */
  private static void nameTable(ExecutionPlan plan, String table) {
    if (plan.children().isEmpty()) {
      if (plan instanceof BaseExecutionPlan base) {
        base.nameTable(table);
      }
      return;
    }
    for (ExecutionPlan child : plan.children()) {
      nameTable(child, table);
    }
  }

  private ExecutionPlan project(Project p) {
    ExecutionPlan fused = filterProjection(p);
    if (fused != null) {
      return fused;
    }
    ExecutionPlan input = plan(p.getInput());
    ExecutionPlan joined = joinProjection(p, input);
    if (joined != null) {
      return joined;
    }
    RelDataType inType = p.getInput().getRowType();
    List<RexNode> projects = p.getProjects();
    List<RexNode> shared = CommonSubexpressions.find(projects);
    if (!shared.isEmpty()) {
      // Evaluate each repeated computation once, below, beside the input's columns (passed
      // through without a copy); the projection above reads it as a column.
      int width = inType.getFieldCount();
      List<PhysicalExpr> below = new ArrayList<>();
      RelDataTypeFactory.Builder type = p.getCluster().getTypeFactory().builder();
      type.addAll(inType.getFieldList());
      for (int i = 0; i < width; i++) {
        below.add(translate(rexBuilder.makeInputRef(inType, i), inType));
      }
      for (int i = 0; i < shared.size(); i++) {
        below.add(translate(shared.get(i), inType));
        type.add("$common" + i, shared.get(i).getType());
      }
      RelDataType belowType = type.uniquify().build();
      input = new ProjectionExec(input, below, belowType.getFieldNames());
      List<RexNode> rewritten = new ArrayList<>(projects.size());
      for (RexNode e : projects) {
        rewritten.add(CommonSubexpressions.replace(rexBuilder, e, shared, width));
      }
      projects = rewritten;
      inType = belowType;
    }
    List<PhysicalExpr> exprs = new ArrayList<>();
    for (RexNode e : projects) {
      exprs.add(translate(e, inType));
    }
    return new ProjectionExec(input, exprs, p.getRowType().getFieldNames());
  }

  /**
   * A projection of some of an INNER hash join's columns without a residual filter, each once and
   * as they are, becomes the join's own projection: the matched rows' other columns (the keys,
   * mostly) are then never gathered. {@code input} is the join as planned, possibly under the
   * projection that restores its column order after building on the right. Returns null for any
   * other projection.
   */
  private ExecutionPlan joinProjection(Project p, ExecutionPlan input) {
    if (!(p.getInput() instanceof Join)) {
      return null;
    }
    int[] columns = plainColumns(p.getProjects(), p.getInput().getRowType().getFieldCount());
    if (columns == null) {
      return null;
    }
    HashJoinExec join;
    if (input instanceof HashJoinExec h) {
      join = h;
    } else if (input instanceof ProjectionExec swap
        && swap.input() instanceof HashJoinExec h
        && swap.exprs().stream().allMatch(e -> e instanceof ColumnExpr)) {
      join = h;
      for (int i = 0; i < columns.length; i++) {
        columns[i] = ((ColumnExpr) swap.exprs().get(columns[i])).index();
      }
    } else {
      return null;
    }
    if (join.joinType() != JoinType.INNER
        || join.residualFilter() != null
        || join.projection() != null) {
      return null;
    }
    ExecutionPlan narrowed =
        new HashJoinExec(
            join.left(),
            join.right(),
            join.leftKeys(),
            join.rightKeys(),
            join.joinType(),
            null,
            join.mode(),
            join.nullEqualsNull(),
            join.semiBuildsLeft(),
            columns);
    return renamed(narrowed, p.getRowType().getFieldNames());
  }

  /**
   * The input columns of {@code projects} when each is a plain column, used once, and they are
   * fewer than {@code width}; else null.
   */
  private static int[] plainColumns(List<RexNode> projects, int width) {
    if (projects.isEmpty() || projects.size() >= width) {
      return null;
    }
    int[] columns = new int[projects.size()];
    boolean[] seen = new boolean[width];
    for (int i = 0; i < columns.length; i++) {
      if (!(projects.get(i) instanceof RexInputRef ref) || seen[ref.getIndex()]) {
        return null;
      }
      seen[ref.getIndex()] = true;
      columns[i] = ref.getIndex();
    }
    return columns;
  }

  /**
   * {@code plan} with its columns named {@code names}, through a projection only if they differ.
   */
  private static ExecutionPlan renamed(ExecutionPlan plan, List<String> names) {
    List<Field> fields = plan.schema().getFields();
    List<PhysicalExpr> exprs = new ArrayList<>(fields.size());
    boolean sameNames = true;
    for (int i = 0; i < fields.size(); i++) {
      sameNames &= names.get(i).equals(fields.get(i).getName());
      exprs.add(ColumnExpr.of(i, fields.get(i)));
    }
    return sameNames ? plan : new ProjectionExec(plan, exprs, names);
  }

  /**
   * A projection of some of a filter's columns, each once and as they are, becomes the filter's own
   * projection: the columns only its condition reads are then not copied with the kept rows.
   * Returns null for any other projection.
   */
  private ExecutionPlan filterProjection(Project p) {
    if (!(p.getInput() instanceof Filter f) || shared.isShared(f)) {
      return null;
    }
    int[] columns = plainColumns(p.getProjects(), f.getRowType().getFieldCount());
    if (columns == null) {
      return null;
    }
    ExecutionPlan filtered =
        new FilterExec(
            plan(f.getInput()), translate(f.getCondition(), f.getInput().getRowType()), columns);
    return renamed(filtered, p.getRowType().getFieldNames());
  }

  private ExecutionPlan values(Values v) {
    Schema schema = TypeMapping.toArrowSchema(v.getRowType());
    if (v.getTuples().isEmpty()) {
      return new EmptyExec(schema, false);
    }
    List<List<Object>> rows = new ArrayList<>();
    for (List<RexLiteral> tuple : v.getTuples()) {
      List<Object> row = new ArrayList<>();
      for (RexLiteral lit : tuple) {
        row.add(javaValue(lit));
      }
      rows.add(row);
    }
    return new ValuesExec(schema, rows);
  }

  // ---- sort, limit, union ---------------------------------------------------------------

  private ExecutionPlan sort(Sort s) {
    long offset = s.offset == null ? 0 : longValue(s.offset, "OFFSET");
    long fetch = s.fetch == null ? -1 : longValue(s.fetch, "LIMIT");
    if (s.getCollation().getFieldCollations().isEmpty()) {
      ExecutionPlan input =
          s.getInput() instanceof QuiverScan scan && fetch >= 0
              ? scan(scan, OptionalLong.of(offset + fetch))
              : plan(s.getInput());
      if (offset == 0 && fetch < 0) {
        return input;
      }
      return new LimitExec(single(input), offset, fetch);
    }
    ExecutionPlan input = plan(s.getInput());
    List<SortField> order = sortFields(input, s.getCollation().getFieldCollations());
    long total = fetch < 0 ? -1 : offset + fetch;
    ExecutionPlan sorted;
    if (input.partitionCount() == 1) {
      sorted = new SortExec(input, order, total, false);
    } else {
      sorted = new SortPreservingMergeExec(new SortExec(input, order, total, true), order, total);
    }
    return offset > 0 ? new LimitExec(sorted, offset, fetch) : sorted;
  }

  List<SortField> sortFields(ExecutionPlan input, List<RelFieldCollation> collations) {
    List<SortField> order = new ArrayList<>();
    for (RelFieldCollation fc : collations) {
      boolean asc = !fc.getDirection().isDescending();
      boolean nullsFirst = fc.nullDirection == RelFieldCollation.NullDirection.FIRST;
      order.add(new SortField(column(input, fc.getFieldIndex()), asc, nullsFirst));
    }
    return order;
  }

  private static long longValue(RexNode node, String what) {
    if (node instanceof RexLiteral lit) {
      Long v = lit.getValueAs(Long.class);
      if (v != null && v >= 0) {
        return v;
      }
    }
    throw new QuiverException(what + " must be a non-negative integer literal, got " + node);
  }

  private ExecutionPlan union(Union u) {
    List<ExecutionPlan> inputs = new ArrayList<>();
    for (RelNode in : u.getInputs()) {
      inputs.add(plan(in));
    }
    ExecutionPlan all = new UnionExec(inputs);
    if (u.all) {
      return all;
    }
    List<Integer> keys = new ArrayList<>();
    List<PhysicalExpr> groups = new ArrayList<>();
    for (int i = 0; i < u.getRowType().getFieldCount(); i++) {
      keys.add(i);
      groups.add(column(all, i));
    }
    return aggregates.phases(all, keys, groups, u.getRowType().getFieldNames(), List.of(), false);
  }

  // ---- helpers --------------------------------------------------------------------------

  private static Object javaValue(RexLiteral lit) {
    if (lit.isNull()) {
      return null;
    }
    return switch (lit.getType().getSqlTypeName()) {
      case TINYINT, SMALLINT, INTEGER, BIGINT -> lit.getValueAs(Long.class);
      case DECIMAL -> lit.getValueAs(BigDecimal.class).setScale(lit.getType().getScale());
      case FLOAT, REAL, DOUBLE -> lit.getValueAs(Double.class);
      case CHAR, VARCHAR -> lit.getValueAs(String.class);
      case BOOLEAN -> lit.getValueAs(Boolean.class);
      case DATE -> LocalDate.ofEpochDay(lit.getValueAs(DateString.class).getDaysSinceEpoch());
      // TimestampString's text keeps every fractional digit; its millis would drop micros.
      case TIMESTAMP ->
          LocalDateTime.parse(lit.getValueAs(TimestampString.class).toString().replace(' ', 'T'));
      default ->
          throw new QuiverException(
              "Literal " + lit + " of type " + lit.getType() + " is not supported in VALUES");
    };
  }
}
