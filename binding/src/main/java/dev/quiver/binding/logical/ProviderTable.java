package dev.quiver.binding.logical;

import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.datasource.TableStatistics;
import java.util.List;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.TranslatableTable;
import org.apache.calcite.schema.impl.AbstractTable;

/** Calcite's view of a {@link TableProvider}: row type, row count, and a {@link QuiverScan}. */
public final class ProviderTable extends AbstractTable implements TranslatableTable {
  /** Row count assumed when a provider knows nothing, so that unknown tables do not look tiny. */
  static final double UNKNOWN_ROWS = 1_000_000d;

  private final String name;
  private final TableProvider provider;

  /** Wraps {@code provider} registered as {@code name}. */
  public ProviderTable(String name, TableProvider provider) {
    this.name = name;
    this.provider = provider;
  }

  /** Registered name. */
  public String name() {
    return name;
  }

  /** The wrapped provider. */
  public TableProvider provider() {
    return provider;
  }

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    return TypeMapping.toRelRowType(provider.schema(), typeFactory);
  }

  @Override
  public Statistic getStatistic() {
    return Statistics.of(estimatedRows(provider), List.of());
  }

  /** The provider's row count, or a large default when unknown. */
  public static double estimatedRows(TableProvider provider) {
    TableStatistics stats = provider.statistics();
    if (stats != null && stats.rowCount().isPresent()) {
      return Math.max(1, stats.rowCount().getAsLong());
    }
    if (stats != null && stats.totalBytes().isPresent()) {
      return Math.max(1, stats.totalBytes().getAsLong() / 64);
    }
    return UNKNOWN_ROWS;
  }

  @Override
  public RelNode toRel(RelOptTable.ToRelContext context, RelOptTable relOptTable) {
    return new QuiverScan(context.getCluster(), relOptTable, this, null, List.of());
  }
}
