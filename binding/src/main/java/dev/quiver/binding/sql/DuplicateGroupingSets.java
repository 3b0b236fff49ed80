package dev.quiver.binding.sql;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Converts an aggregate whose grouping sets repeat, {@code GROUP BY GROUPING SETS ((a), (), ())}:
 * each repetition of a set yields its rows again, as in the SQL standard and DuckDB.
 *
 * <p>An {@code Aggregate} holds its grouping sets as a set, so the query becomes the UNION ALL of
 * one aggregate per repetition level: level {@code g} groups by the sets given more than {@code g}
 * times, and {@code GROUP_ID()} is {@code g} in it. Calcite's converter does the same, but its
 * version (1.42) read the wrong columns of a level whose sets are all {@code ()}: {@code GROUPING
 * SETS ((a), (), ())} returned the input rows themselves in place of the groups.
 */
final class DuplicateGroupingSets {
  private DuplicateGroupingSets() {}

  /** Whether {@code sets} name a set twice or the calls ask for {@code GROUP_ID()}. */
  static boolean applies(List<ImmutableBitSet> sets, List<AggregateCall> calls) {
    return sets.stream().distinct().count() < sets.size()
        || calls.stream().anyMatch(DuplicateGroupingSets::isGroupId);
  }

  /**
   * The UNION ALL of one aggregate of {@code input} per repetition level of {@code sets}, with the
   * row type of an aggregate over all of them: the keys of {@code groupSet}, then {@code calls}.
   */
  static RelNode expand(
      RelBuilder b,
      RelNode input,
      ImmutableBitSet groupSet,
      List<ImmutableBitSet> sets,
      List<AggregateCall> calls) {
    Map<ImmutableBitSet, Integer> counts = new TreeMap<>(ImmutableBitSet.COMPARATOR);
    for (ImmutableBitSet set : sets) {
      counts.merge(set, 1, Integer::sum);
    }
    int levels = counts.values().stream().mapToInt(Integer::intValue).max().orElse(1);
    List<AggregateCall> plainCalls = calls.stream().filter(c -> !isGroupId(c)).toList();
    for (int g = 0; g < levels; g++) {
      List<ImmutableBitSet> level = new ArrayList<>();
      for (Map.Entry<ImmutableBitSet, Integer> e : counts.entrySet()) {
        if (e.getValue() > g) {
          level.add(e.getKey());
        }
      }
      // With DISTINCT calls a level groups by its own sets' keys only: an aggregate keyed by more
      // columns than its sets name (a level of only ()) lost its sets when the DISTINCT calls
      // were expanded into joins, and grouped by the whole key. Keys outside the level are NULL,
      // as in the level's rows. (GROUPING() needs the whole key: such levels stay as they were.)
      boolean distinct = plainCalls.stream().anyMatch(AggregateCall::isDistinct);
      ImmutableBitSet levelKeys =
          distinct && plainCalls.stream().noneMatch(DuplicateGroupingSets::isGrouping)
              ? ImmutableBitSet.union(level)
              : groupSet;
      b.push(input).aggregate(b.groupKey(levelKeys, level), plainCalls);
      // The keys, then each call: GROUP_ID() is the level, the others the aggregate's columns.
      List<RexNode> fields = new ArrayList<>();
      int key = 0;
      for (int k : groupSet) {
        fields.add(
            levelKeys.get(k)
                ? b.field(key++)
                : b.getRexBuilder()
                    .makeNullLiteral(
                        b.getTypeFactory()
                            .createTypeWithNullability(
                                input.getRowType().getFieldList().get(k).getType(), true)));
      }
      int next = levelKeys.cardinality();
      for (AggregateCall call : calls) {
        fields.add(
            isGroupId(call)
                ? b.getRexBuilder().makeExactLiteral(BigDecimal.valueOf(g), call.getType())
                : b.field(next++));
      }
      b.project(fields, List.of(), true);
    }
    return b.union(true, levels).build();
  }

  private static boolean isGrouping(AggregateCall call) {
    SqlKind kind = call.getAggregation().getKind();
    return kind == SqlKind.GROUPING || kind == SqlKind.GROUPING_ID;
  }

  private static boolean isGroupId(AggregateCall call) {
    return call.getAggregation().getKind() == SqlKind.GROUP_ID;
  }
}
