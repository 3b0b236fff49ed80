package dev.quiver.binding.logical;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Logical scan of a {@link ProviderTable} that carries the columns to read and filter hints, so
 * that projection and predicate push-down reach the provider's {@code ScanRequest}.
 */
public final class QuiverScan extends TableScan {
  private final ProviderTable providerTable;
  private final int[] projection;
  private final List<RexNode> filters;

  /**
   * Creates a scan.
   *
   * @param projection table column indices to read, or null for all
   * @param filters predicates over the table's full row type (hints)
   */
  public QuiverScan(
      RelOptCluster cluster,
      RelOptTable table,
      ProviderTable providerTable,
      int[] projection,
      List<RexNode> filters) {
    super(cluster, cluster.traitSetOf(Convention.NONE), List.of(), table);
    this.providerTable = providerTable;
    this.projection = projection == null ? null : projection.clone();
    this.filters = List.copyOf(filters);
  }

  /** The scanned table. */
  public ProviderTable providerTable() {
    return providerTable;
  }

  /** Table column indices read, or null for all. */
  public int[] projection() {
    return projection == null ? null : projection.clone();
  }

  /** Filter hints over the table's full row type. */
  public List<RexNode> filters() {
    return filters;
  }

  /** Table column index of output field {@code i}. */
  public int tableColumn(int i) {
    return projection == null ? i : projection[i];
  }

  /** A copy reading only output fields {@code fields} (in that order) of this scan. */
  public QuiverScan withFields(List<Integer> fields) {
    int[] p = new int[fields.size()];
    for (int i = 0; i < p.length; i++) {
      p[i] = tableColumn(fields.get(i));
    }
    return new QuiverScan(getCluster(), getTable(), providerTable, p, filters);
  }

  /** A copy with more filter hints. */
  public QuiverScan withFilters(List<RexNode> more) {
    List<RexNode> all = new ArrayList<>(filters);
    all.addAll(more);
    return new QuiverScan(getCluster(), getTable(), providerTable, projection, all);
  }

  @Override
  public RelDataType deriveRowType() {
    RelDataType full = table.getRowType();
    if (projection == null) {
      return full;
    }
    List<RelDataTypeField> fields = full.getFieldList();
    RelDataTypeFactoryBuilderHelper b = new RelDataTypeFactoryBuilderHelper();
    for (int c : projection) {
      b.add(fields.get(c));
    }
    return getCluster().getTypeFactory().createStructType(b.types, b.names);
  }

  private static final class RelDataTypeFactoryBuilderHelper {
    final List<RelDataType> types = new ArrayList<>();
    final List<String> names = new ArrayList<>();

    void add(RelDataTypeField f) {
      types.add(f.getType());
      names.add(f.getName());
    }
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return this;
  }

  @Override
  public double estimateRowCount(RelMetadataQuery mq) {
    return ProviderTable.estimatedRows(providerTable.provider());
  }

  @Override
  public RelNode project(
      ImmutableBitSet fieldsUsed, Set<RelDataTypeField> extraFields, RelBuilder relBuilder) {
    int n = getRowType().getFieldCount();
    if (fieldsUsed.cardinality() == n && extraFields.isEmpty()) {
      return this;
    }
    if (!extraFields.isEmpty()) {
      return super.project(fieldsUsed, extraFields, relBuilder);
    }
    if (fieldsUsed.isEmpty()) {
      // Scans keep one column so row counts survive; an empty projection sits on top.
      return LogicalProject.create(
          withFields(List.of(0)), List.of(), List.of(), List.<String>of(), Set.of());
    }
    return withFields(fieldsUsed.asList());
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw)
        .itemIf(
            "projection",
            projection == null ? null : Arrays.toString(projection),
            projection != null)
        .itemIf("filters", filters, !filters.isEmpty());
  }
}
