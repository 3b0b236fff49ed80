package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** The {@link TableCatalogFactory}s on the class path, found once through {@link ServiceLoader}. */
public final class TableCatalogFactories {
  private static volatile Map<String, TableCatalogFactory> installed;

  private TableCatalogFactories() {}

  /** The installed factories by lower-case type. */
  public static Map<String, TableCatalogFactory> installed() {
    Map<String, TableCatalogFactory> found = installed;
    if (found == null) {
      synchronized (TableCatalogFactories.class) {
        found = installed;
        if (found == null) {
          found = load();
          installed = found;
        }
      }
    }
    return found;
  }

  /**
   * The factory of catalogs of {@code type} (any case).
   *
   * @throws UnsupportedFeatureException naming the installed types when none opens {@code type}
   */
  public static TableCatalogFactory forType(String type) {
    TableCatalogFactory f = installed().get(type.toLowerCase(Locale.ROOT));
    if (f == null) {
      throw new UnsupportedFeatureException(
          "No catalog type '"
              + type
              + "'"
              + (installed().isEmpty()
                  ? ": none is installed (Iceberg catalogs need the quiver-iceberg module)"
                  : "; the types are " + String.join(", ", installed().keySet())));
    }
    return f;
  }

  private static Map<String, TableCatalogFactory> load() {
    Map<String, TableCatalogFactory> byType = new TreeMap<>();
    try {
      for (TableCatalogFactory f :
          ServiceLoader.load(
              TableCatalogFactory.class, TableCatalogFactory.class.getClassLoader())) {
        for (String type : f.types()) {
          TableCatalogFactory previous = byType.putIfAbsent(type.toLowerCase(Locale.ROOT), f);
          if (previous != null && previous != f) {
            throw new QuiverException(
                "Two catalog factories open type '"
                    + type
                    + "': "
                    + previous.getClass().getName()
                    + " and "
                    + f.getClass().getName());
          }
        }
      }
    } catch (ServiceConfigurationError e) {
      throw new QuiverException("Loading catalog factories failed: " + e.getMessage(), e);
    }
    return Collections.unmodifiableMap(byType);
  }
}
