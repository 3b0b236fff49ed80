package dev.quiver.binding.sql;

import dev.quiver.binding.errors.QuiverException;
import java.util.List;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.TranslatableTable;
import org.apache.calcite.schema.impl.AbstractTable;

/** A view in Calcite's catalog: expands to its SQL (re-planned) or to its stored plan. */
final class ViewTable extends AbstractTable implements TranslatableTable {
  private final Catalog.ViewEntry view;

  ViewTable(Catalog.ViewEntry view) {
    this.view = view;
  }

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    return view.rowType();
  }

  @Override
  public RelNode toRel(RelOptTable.ToRelContext context, RelOptTable relOptTable) {
    if (view.rel() != null) {
      if (view.rel().getCluster() != context.getCluster()) {
        throw new QuiverException(
            "View "
                + view.name()
                + " was registered from a DataFrame of another session; sessions that share"
                + " tables share views made with CREATE VIEW only");
      }
      return view.rel();
    }
    return context.expandView(view.rowType(), view.sql(), List.of(), List.of(view.name())).rel;
  }
}
