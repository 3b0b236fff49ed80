package dev.quiver.binding.datasource;

import dev.quiver.binding.settings.SessionConfig;
import java.util.Map;

/**
 * Opens {@link TableCatalog}s of one type for {@code ATTACH 'uri' AS name (TYPE type, key 'value',
 * ...)} and {@code SessionContext.attachCatalog(name, type, uri, options)}. Sessions find the ones
 * on the class path through {@link java.util.ServiceLoader} (list them in {@code
 * META-INF/services/dev.quiver.binding.datasource.TableCatalogFactory}); see {@link
 * TableCatalogFactories}.
 */
public interface TableCatalogFactory {
  /** The types this factory opens, lower case ({@code iceberg}, {@code iceberg_rest}). */
  java.util.Set<String> types();

  /**
   * Opens the catalog at {@code uri} to be attached as {@code name}. {@code options} (keys lower
   * case) may hold secrets: errors must not show their values.
   */
  TableCatalog open(
      String type, String name, String uri, Map<String, String> options, SessionConfig config);
}
