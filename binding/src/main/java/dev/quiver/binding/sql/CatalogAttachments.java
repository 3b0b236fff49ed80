package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableCatalogFactories;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.settings.SessionConfig;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Attaching and detaching catalogs by type ({@code ATTACH 'uri' AS name (TYPE type, ...)}, {@code
 * SessionContext.attachCatalog(name, type, uri, options)}): the type's {@link
 * dev.quiver.binding.datasource.TableCatalogFactory} opens the catalog; detaching closes it.
 */
public final class CatalogAttachments {
  /** The type when ATTACH names none: Iceberg (a REST catalog for http URIs, else a warehouse). */
  public static final String DEFAULT_TYPE = "iceberg";

  private CatalogAttachments() {}

  /**
   * Opens a catalog of {@code type} (null: {@link #DEFAULT_TYPE}) at {@code uri} and attaches it as
   * {@code name}.
   *
   * @throws QuiverException when the name is taken or not a plain name; the type's errors when the
   *     catalog cannot be opened (never showing the options' values)
   */
  public static TableCatalog attach(
      Catalog catalog,
      String name,
      String type,
      String uri,
      Map<String, String> options,
      SessionConfig config) {
    checkName(name);
    if (catalog.attached().containsKey(Catalog.key(name))) {
      throw new QuiverException(
          "A catalog is already attached as " + name + "; DETACH " + name + " first");
    }
    Map<String, String> lower = new TreeMap<>();
    options.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
    String t = type == null ? DEFAULT_TYPE : type.toLowerCase(Locale.ROOT);
    TableCatalog opened =
        TableCatalogFactories.forType(t).open(t, Catalog.key(name), uri, lower, config);
    try {
      catalog.attach(name, opened);
    } catch (RuntimeException e) {
      close(name, opened);
      throw e;
    }
    return opened;
  }

  /** Detaches catalog {@code name} and closes it; returns whether one was attached so. */
  public static boolean detach(Catalog catalog, String name) {
    TableCatalog removed = catalog.detach(name);
    close(name, removed);
    return removed != null;
  }

  /** Checks that {@code name} can name a catalog: not empty, no dots. */
  public static void checkName(String name) {
    if (name == null || name.isBlank() || name.contains(".")) {
      throw new QuiverException("A catalog needs a non-empty name without dots; got " + name);
    }
  }

  private static void close(String name, TableCatalog catalog) {
    if (catalog instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        throw new QuiverException("Closing catalog " + name + " failed: " + e.getMessage(), e);
      }
    }
  }
}
