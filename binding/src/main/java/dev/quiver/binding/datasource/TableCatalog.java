package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.UnsupportedFeatureException;
import java.util.List;

/**
 * Tables kept elsewhere and named {@code catalog.namespace.table} in SQL once the catalog is
 * attached to a session ({@code SessionContext.attachCatalog}, or {@code ATTACH 'uri' AS name (TYPE
 * type, ...)} through a {@link TableCatalogFactory}): a lakehouse catalog, a warehouse folder.
 * Tables are looked up when a statement names them, so every statement sees the catalog's current
 * tables. {@link #toString} names the catalog and never shows its credentials.
 */
public interface TableCatalog {
  /** The namespaces (schemas) of the catalog. */
  List<String> namespaces();

  /** The tables of {@code namespace}; empty when it has none or does not exist. */
  List<String> tables(String namespace);

  /** Table {@code name} of {@code namespace} as it is now, or null when there is none. */
  TableProvider table(String namespace, String name);

  /**
   * Table {@code name} of {@code namespace} at snapshot (version) {@code snapshotId}, or null when
   * there is no such table ({@code FROM cat.ns.t FOR VERSION AS OF id}).
   *
   * @throws UnsupportedFeatureException when the catalog keeps no history
   */
  default TableProvider tableAtSnapshot(String namespace, String name, long snapshotId) {
    throw new UnsupportedFeatureException(
        "Catalog " + this + " keeps no table versions: FOR VERSION AS OF reads Iceberg catalogs");
  }

  /**
   * Table {@code name} of {@code namespace} as it was at {@code epochMillis} (UTC), or null when
   * there is no such table ({@code FROM cat.ns.t FOR TIMESTAMP AS OF TIMESTAMP '...'}).
   *
   * @throws UnsupportedFeatureException when the catalog keeps no history
   */
  default TableProvider tableAsOf(String namespace, String name, long epochMillis) {
    throw new UnsupportedFeatureException(
        "Catalog " + this + " keeps no table versions: FOR TIMESTAMP AS OF reads Iceberg catalogs");
  }
}
