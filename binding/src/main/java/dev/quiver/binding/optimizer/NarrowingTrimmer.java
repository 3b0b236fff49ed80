package dev.quiver.binding.optimizer;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.logical.LogicalWindow;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.rex.RexWindowBound;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql2rel.RelFieldTrimmer;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.mapping.Mapping;
import org.apache.calcite.util.mapping.MappingType;
import org.apache.calcite.util.mapping.Mappings;

/**
 * Calcite's field trimmer, plus a projection over every filter and join whose output carries
 * columns that nothing above reads.
 *
 * <p>The plain trimmer keeps a filter's condition columns and a join's key columns in their
 * outputs, because the node itself needs them. Every operator above then carries them along: a
 * repartition or shuffle copies and sends them, and a hash join gathers them for each matched row.
 * TPC-H Q21's {@code l_receiptdate > l_commitdate} filter sent both dates with the 3.8M lineitem
 * rows it kept into a repartition and a hash join that only read {@code l_orderkey} and {@code
 * l_suppkey}. A projection of only the columns used above drops them where they stop being needed;
 * the physical projection of plain columns copies no data.
 */
public final class NarrowingTrimmer extends RelFieldTrimmer {
  private final RelBuilder relBuilder;

  public NarrowingTrimmer(RelBuilder relBuilder) {
    super(null, relBuilder);
    this.relBuilder = relBuilder;
  }

  /** Trims {@code rel}'s unused columns, narrowing filter and join outputs as described above. */
  public static RelNode apply(RelNode rel, RelBuilder relBuilder) {
    return new NarrowingTrimmer(relBuilder).trim(rel);
  }

  @Override
  public TrimResult trimFields(
      Filter filter, ImmutableBitSet fieldsUsed, Set<RelDataTypeField> extraFields) {
    return narrow(super.trimFields(filter, fieldsUsed, extraFields), fieldsUsed);
  }

  @Override
  public TrimResult trimFields(
      Join join, ImmutableBitSet fieldsUsed, Set<RelDataTypeField> extraFields) {
    return narrow(super.trimFields(join, fieldsUsed, extraFields), fieldsUsed);
  }

  /**
   * Trims a window's input to the columns used above it and by its partitions, orders, bounds and
   * calls; Calcite's trimmer has no rule for windows and kept every input column, so a window over
   * a scan read, sorted and gathered every column of the table (TPC-H's orders with its comments,
   * for a running sum of one column). The window's own columns are kept.
   */
  public TrimResult trimFields(
      Window window, ImmutableBitSet fieldsUsed, Set<RelDataTypeField> extraFields) {
    RelNode input = window.getInput();
    int inputCount = input.getRowType().getFieldCount();
    int fieldCount = window.getRowType().getFieldCount();
    ImmutableBitSet.Builder needed = ImmutableBitSet.builder();
    for (int field : fieldsUsed) {
      if (field < inputCount) {
        needed.set(field);
      }
    }
    RexShuttle collect =
        new RexShuttle() {
          @Override
          public RexNode visitInputRef(RexInputRef ref) {
            // References past the input are the window's constants.
            if (ref.getIndex() < inputCount) {
              needed.set(ref.getIndex());
            }
            return ref;
          }
        };
    for (Window.Group group : window.groups) {
      needed.addAll(group.keys);
      group.orderKeys.getFieldCollations().forEach(c -> needed.set(c.getFieldIndex()));
      group.lowerBound.accept(collect);
      group.upperBound.accept(collect);
      group.aggCalls.forEach(call -> call.accept(collect));
    }
    ImmutableBitSet inputFieldsUsed = needed.build();
    if (inputFieldsUsed.cardinality() == inputCount) {
      return super.trimFields((RelNode) window, fieldsUsed, extraFields);
    }
    TrimResult trimmed = trimChild(window, input, inputFieldsUsed, extraFields);
    RelNode newInput = trimmed.left;
    Mapping inputMapping = trimmed.right;
    int newInputCount = newInput.getRowType().getFieldCount();
    RexShuttle remap =
        new RexShuttle() {
          @Override
          public RexNode visitInputRef(RexInputRef ref) {
            int i = ref.getIndex();
            int target =
                i < inputCount ? inputMapping.getTarget(i) : i - inputCount + newInputCount;
            return new RexInputRef(target, ref.getType());
          }
        };
    List<Window.Group> groups = new ArrayList<>();
    for (Window.Group group : window.groups) {
      List<Window.RexWinAggCall> calls = new ArrayList<>();
      for (Window.RexWinAggCall call : group.aggCalls) {
        calls.add(
            new Window.RexWinAggCall(
                (SqlAggFunction) call.getOperator(),
                call.getType(),
                remap.apply(call.getOperands()),
                call.ordinal,
                call.distinct,
                call.ignoreNulls));
      }
      groups.add(
          new Window.Group(
              Mappings.apply(inputMapping, group.keys),
              group.isRows,
              (RexWindowBound) group.lowerBound.accept(remap),
              (RexWindowBound) group.upperBound.accept(remap),
              group.exclude,
              RexUtil.apply(inputMapping, group.orderKeys),
              calls));
    }
    List<RelDataTypeField> fields = window.getRowType().getFieldList();
    RelDataType rowType =
        relBuilder
            .getTypeFactory()
            .builder()
            .addAll(newInput.getRowType().getFieldList())
            .addAll(fields.subList(inputCount, fieldCount))
            .build();
    RelNode newWindow =
        LogicalWindow.create(window.getTraitSet(), newInput, window.constants, rowType, groups);
    Mapping mapping =
        Mappings.create(
            MappingType.INVERSE_SURJECTION, fieldCount, newInputCount + fieldCount - inputCount);
    for (int i = 0; i < inputCount; i++) {
      int target = inputMapping.getTargetOpt(i);
      if (target >= 0) {
        mapping.set(i, target);
      }
    }
    for (int i = inputCount; i < fieldCount; i++) {
      mapping.set(i, i - inputCount + newInputCount);
    }
    return result(newWindow, mapping);
  }

  /**
   * Puts a projection of {@code fieldsUsed} (numbered as the original node's columns) over the
   * trimmed node when it still has other columns, and maps the original columns to it.
   */
  private TrimResult narrow(TrimResult trimmed, ImmutableBitSet fieldsUsed) {
    RelNode rel = trimmed.left;
    Mapping mapping = trimmed.right;
    int width = rel.getRowType().getFieldCount();
    int used = fieldsUsed.cardinality();
    // Nothing used (COUNT(*) above): the plain trimmer's choice of a column stays.
    if (used == 0 || used >= width) {
      return trimmed;
    }
    RexBuilder rex = relBuilder.getRexBuilder();
    List<RexNode> exprs = new ArrayList<>(used);
    List<String> names = new ArrayList<>(used);
    Mapping narrowed =
        Mappings.create(MappingType.INVERSE_SURJECTION, mapping.getSourceCount(), used);
    for (int field : fieldsUsed) {
      int target = mapping.getTargetOpt(field);
      if (target < 0) {
        return trimmed;
      }
      narrowed.set(field, exprs.size());
      exprs.add(rex.makeInputRef(rel, target));
      names.add(rel.getRowType().getFieldNames().get(target));
    }
    RelNode project = LogicalProject.create(rel, List.of(), exprs, names, Set.of());
    return result(project, narrowed);
  }
}
