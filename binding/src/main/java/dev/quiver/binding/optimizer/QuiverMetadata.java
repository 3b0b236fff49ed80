package dev.quiver.binding.optimizer;

import java.util.List;
import org.apache.calcite.rel.metadata.BuiltInMetadata;
import org.apache.calcite.rel.metadata.ChainedRelMetadataProvider;
import org.apache.calcite.rel.metadata.DefaultRelMetadataProvider;
import org.apache.calcite.rel.metadata.ReflectiveRelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMetadataProvider;

/** Quiver's relational metadata: its own handlers first, then Calcite's defaults. */
public final class QuiverMetadata {
  /** The provider every planning cluster of a session uses. */
  public static final RelMetadataProvider PROVIDER =
      ChainedRelMetadataProvider.of(
          List.of(
              ReflectiveRelMetadataProvider.reflectiveSource(
                  new JoinRowCount(), BuiltInMetadata.RowCount.Handler.class),
              ReflectiveRelMetadataProvider.reflectiveSource(
                  new SubQueryFreePredicates(), BuiltInMetadata.Predicates.Handler.class),
              ReflectiveRelMetadataProvider.reflectiveSource(
                  new PatternSelectivity(), BuiltInMetadata.Selectivity.Handler.class),
              DefaultRelMetadataProvider.INSTANCE));

  private QuiverMetadata() {}
}
