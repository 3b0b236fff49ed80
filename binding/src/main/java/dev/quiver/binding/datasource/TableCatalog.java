package dev.quiver.binding.datasource;

import java.util.List;

/**
 * Tables kept elsewhere and named {@code catalog.namespace.table} in SQL once the catalog is
 * attached to a session ({@code SessionContext.attachCatalog}): a lakehouse catalog, a warehouse
 * folder. Tables are looked up when a statement names them, so every statement sees the catalog's
 * current tables.
 */
public interface TableCatalog {
  /** The namespaces (schemas) of the catalog. */
  List<String> namespaces();

  /** The tables of {@code namespace}; empty when it has none or does not exist. */
  List<String> tables(String namespace);

  /** Table {@code name} of {@code namespace} as it is now, or null when there is none. */
  TableProvider table(String namespace, String name);
}
