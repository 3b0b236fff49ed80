package dev.quiver.binding.planner;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Rewrites an aggregate over several grouping sets (GROUPING SETS, ROLLUP, CUBE) as one plain
 * aggregate whose group key includes the grouping set's number, so that it runs as any other
 * aggregate: partially on each partition, finally after a shuffle on the key.
 *
 * <p>Every input row is copied once per grouping set (a cross join with the set numbers {@code
 * 0..n-1}); in the copy for set {@code g} the group columns outside {@code g} are NULL. The
 * aggregate groups the copies by (group columns, set number); GROUPING(...) is a constant of the
 * set number. A grand-total set ({@code ()}) yields its row even over no input, as in PostgreSQL
 * and DuckDB: one extra row, counted by no aggregate (each aggregate's FILTER excludes it), stands
 * in that set.
 */
final class GroupingSets {
  private GroupingSets() {}

  /** The plain-aggregate form of {@code agg}, with {@code agg}'s row type. */
  static RelNode expand(Aggregate agg) {
    RelOptCluster cluster = agg.getCluster();
    RexBuilder rex = cluster.getRexBuilder();
    RelDataTypeFactory types = cluster.getTypeFactory();
    RelBuilder b = RelFactories.LOGICAL_BUILDER.create(cluster, null);
    RelNode input = agg.getInput();
    int m = input.getRowType().getFieldCount();
    List<Integer> keys = agg.getGroupSet().asList();
    List<ImmutableBitSet> sets = agg.getGroupSets();
    int n = sets.size();
    int grandTotal = sets.indexOf(ImmutableBitSet.of());
    boolean marked = grandTotal >= 0;
    RelDataType intType = types.createSqlType(SqlTypeName.INTEGER);

    // [$gid, in_0 .. in_m-1]: every input row once per grouping set.
    List<List<RexLiteral>> setNumbers = new ArrayList<>();
    for (int g = 0; g < n; g++) {
      setNumbers.add(List.of(number(rex, g, intType)));
    }
    b.values(setNumbers, types.builder().add("$gid", intType).build());
    b.push(input);
    b.join(JoinRelType.INNER, rex.makeLiteral(true));
    int inputBase = 1;
    if (marked) {
      // [$gid, $real, in...] plus the stand-in row of the grand total, whose $real is FALSE.
      List<RexNode> fields = new ArrayList<>();
      List<String> names = new ArrayList<>();
      fields.add(b.field(0));
      names.add("$gid");
      fields.add(rex.makeLiteral(true));
      names.add("$real");
      for (int i = 0; i < m; i++) {
        fields.add(b.field(1 + i));
        names.add("$in" + i);
      }
      b.project(fields, names, true);
      RelDataTypeFactory.Builder standInType = types.builder();
      List<RexLiteral> standIn = new ArrayList<>();
      for (RelDataTypeField f : b.peek().getRowType().getFieldList()) {
        RelDataType t = types.createTypeWithNullability(f.getType(), true);
        standInType.add(f.getName(), t);
        // $real (index 1) and every input column are NULL.
        standIn.add(
            f.getIndex() == 0 ? number(rex, grandTotal, t) : (RexLiteral) rex.makeNullLiteral(t));
      }
      b.values(List.of(standIn), standInType.build());
      b.union(true, 2);
      inputBase = 2;
    }

    // [key_0 .. key_k-1, $gid, in_0 .. in_m-1, filters...]: keys NULL outside their sets.
    List<RexNode> fields = new ArrayList<>();
    List<String> names = new ArrayList<>();
    RexNode gid = b.field(0);
    for (int key : keys) {
      RexNode ref = b.field(inputBase + key);
      List<RexNode> outside = new ArrayList<>();
      for (int g = 0; g < n; g++) {
        if (!sets.get(g).get(key)) {
          outside.add(rex.makeCall(SqlStdOperatorTable.EQUALS, gid, number(rex, g, intType)));
        }
      }
      if (outside.isEmpty()) {
        fields.add(ref);
      } else {
        RelDataType t = types.createTypeWithNullability(ref.getType(), true);
        fields.add(
            rex.makeCall(
                SqlStdOperatorTable.CASE,
                RexUtil.composeDisjunction(rex, outside),
                rex.makeNullLiteral(t),
                ref));
      }
      names.add("$key" + key);
    }
    int k = keys.size();
    fields.add(gid);
    names.add("$gid");
    int argBase = k + 1;
    for (int i = 0; i < m; i++) {
      fields.add(b.field(inputBase + i));
      names.add("$in" + i);
    }
    List<AggregateCall> calls = agg.getAggCallList();
    int[] filterColumn = new int[calls.size()];
    for (int c = 0; c < calls.size(); c++) {
      AggregateCall call = calls.get(c);
      if (!marked) {
        filterColumn[c] = call.filterArg < 0 ? -1 : argBase + call.filterArg;
        continue;
      }
      RexNode real = rex.makeCall(SqlStdOperatorTable.IS_TRUE, b.field(1));
      RexNode filter =
          call.filterArg < 0
              ? real
              : rex.makeCall(
                  SqlStdOperatorTable.AND,
                  real,
                  rex.makeCall(SqlStdOperatorTable.IS_TRUE, b.field(inputBase + call.filterArg)));
      filterColumn[c] = fields.size();
      fields.add(filter);
      names.add("$filter" + c);
    }
    b.project(fields, names, true);
    RelNode projected = b.build();

    // The plain aggregate over (keys, $gid); GROUPING(...) is computed after it.
    List<AggregateCall> plainCalls = new ArrayList<>();
    int[] position = new int[calls.size()];
    for (int c = 0; c < calls.size(); c++) {
      AggregateCall call = calls.get(c);
      if (isGroupingFunction(call)) {
        position[c] = -1;
        continue;
      }
      List<Integer> args = new ArrayList<>();
      for (int a : call.getArgList()) {
        args.add(argBase + a);
      }
      position[c] = plainCalls.size();
      plainCalls.add(
          AggregateCall.create(
              call.getParserPosition(),
              call.getAggregation(),
              call.isDistinct(),
              call.isApproximate(),
              call.ignoreNulls(),
              call.rexList,
              args,
              filterColumn[c],
              call.distinctKeys == null ? null : call.distinctKeys.shift(argBase),
              RelCollations.shift(call.getCollation(), argBase),
              k + 1,
              projected,
              null,
              call.getName()));
    }
    RelNode plain =
        LogicalAggregate.create(
            projected, List.of(), ImmutableBitSet.range(k + 1), null, plainCalls);

    List<RexNode> out = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      out.add(rex.makeInputRef(plain, i));
    }
    RexNode plainGid = rex.makeInputRef(plain, k);
    for (int c = 0; c < calls.size(); c++) {
      AggregateCall call = calls.get(c);
      if (position[c] >= 0) {
        out.add(rex.makeInputRef(plain, k + 1 + position[c]));
        continue;
      }
      // CASE $gid WHEN 0 THEN grouping(set 0) ... ELSE grouping(set n-1) END
      List<RexNode> cases = new ArrayList<>();
      for (int g = 0; g < n; g++) {
        RexLiteral value = number(rex, groupingValue(call, sets.get(g)), call.getType());
        if (g == n - 1) {
          cases.add(value);
        } else {
          cases.add(rex.makeCall(SqlStdOperatorTable.EQUALS, plainGid, number(rex, g, intType)));
          cases.add(value);
        }
      }
      out.add(cases.size() == 1 ? cases.get(0) : rex.makeCall(SqlStdOperatorTable.CASE, cases));
    }
    RelNode result =
        RelFactories.LOGICAL_BUILDER
            .create(cluster, null)
            .push(plain)
            .project(out, agg.getRowType().getFieldNames(), true)
            .build();
    return RelOptUtil.createCastRel(result, agg.getRowType(), true);
  }

  private static boolean isGroupingFunction(AggregateCall call) {
    SqlKind kind = call.getAggregation().getKind();
    return kind == SqlKind.GROUPING || kind == SqlKind.GROUPING_ID || kind == SqlKind.GROUP_ID;
  }

  /**
   * GROUPING(a, b, ...) in grouping set {@code set}: one bit per argument, the first argument's the
   * most significant, set when the argument is not grouped on. GROUP_ID is 0: Calcite plans
   * repeated grouping sets as separate aggregates.
   */
  private static long groupingValue(AggregateCall call, ImmutableBitSet set) {
    if (call.getAggregation().getKind() == SqlKind.GROUP_ID) {
      return 0;
    }
    long value = 0;
    for (int a : call.getArgList()) {
      value = (value << 1) | (set.get(a) ? 0 : 1);
    }
    return value;
  }

  private static RexLiteral number(RexBuilder rex, long value, RelDataType type) {
    return rex.makeExactLiteral(BigDecimal.valueOf(value), type);
  }
}
