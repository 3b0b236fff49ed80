package dev.quiver.iceberg.catalog;

import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableCatalogFactory;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.settings.SessionConfig;
import java.util.Map;
import java.util.Set;

/**
 * Opens Iceberg catalogs for {@code ATTACH}: type {@code iceberg_rest} is a REST catalog ({@link
 * RestCatalog}); type {@code iceberg} is a REST catalog for an {@code http(s)://} URI and a
 * warehouse folder ({@link WarehouseCatalog}, local or {@code s3://}) otherwise. Found by {@link
 * java.util.ServiceLoader}.
 */
public final class IcebergCatalogs implements TableCatalogFactory {
  /** A REST catalog. */
  public static final String REST = "iceberg_rest";

  /** A REST catalog or a warehouse folder, by the URI. */
  public static final String ICEBERG = "iceberg";

  /** Used by {@link java.util.ServiceLoader}. */
  public IcebergCatalogs() {}

  @Override
  public Set<String> types() {
    return Set.of(ICEBERG, REST);
  }

  @Override
  public TableCatalog open(
      String type, String name, String uri, Map<String, String> options, SessionConfig config) {
    boolean http = uri.startsWith("http://") || uri.startsWith("https://");
    if (type.equals(REST) || http) {
      if (!http) {
        throw new QueryTypeException(
            "An Iceberg REST catalog needs an http:// or https:// URI, got "
                + RestCatalog.shownUri(uri));
      }
      return new RestCatalog(name, uri, options, config);
    }
    if (!options.isEmpty()) {
      throw new QueryTypeException(
          "An Iceberg warehouse folder takes no options (the session's quiver.s3.* settings reach"
              + " S3); got "
              + String.join(", ", options.keySet()));
    }
    return new WarehouseCatalog(name, uri, config);
  }
}
