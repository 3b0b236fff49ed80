package dev.quiver.examples.cli;

import dev.quiver.binding.SessionContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --catalog NAME=TYPE:URI} and {@code --catalog-option NAME.KEY=VALUE}: catalogs a command
 * attaches to its sessions.
 */
public final class CatalogOptions {
  @Option(
      names = "--catalog",
      paramLabel = "NAME=TYPE:URI",
      description =
          "Attaches a catalog as NAME (repeatable), its tables named NAME.namespace.table:"
              + " iceberg-rest:http(s)://... (an Iceberg REST catalog) or iceberg:PATH (a"
              + " warehouse folder of Iceberg tables, local or s3://). Example: --catalog"
              + " lake=iceberg-rest:http://127.0.0.1:8181")
  private Map<String, String> catalogs = new LinkedHashMap<>();

  @Option(
      names = "--catalog-option",
      paramLabel = "NAME.KEY=VALUE",
      description =
          "An option of catalog NAME (repeatable), passed to the catalog: warehouse, token,"
              + " credential, scope, prefix, header.X, ... Example: --catalog-option"
              + " lake.warehouse=main. Values are never printed.")
  private Map<String, String> catalogOptions = new LinkedHashMap<>();

  /** The names of the catalogs given, in the order given. */
  public List<String> names() {
    return new ArrayList<>(catalogs.keySet());
  }

  /** The locations of the warehouse catalogs given ({@code iceberg:PATH}), in the order given. */
  public List<String> warehouses() {
    List<String> out = new ArrayList<>();
    for (String typeAndUri : catalogs.values()) {
      if (typeAndUri.startsWith("iceberg:")) {
        out.add(typeAndUri.substring("iceberg:".length()));
      }
    }
    return out;
  }

  /** Attaches the catalogs in {@code ctx}; a malformed one is a usage error of {@code spec}. */
  public void attach(SessionContext ctx, CommandSpec spec) {
    Map<String, Map<String, String>> options = catalogOptions(spec);
    catalogs.forEach(
        (name, typeAndUri) -> {
          int colon = typeAndUri.indexOf(':');
          if (colon <= 0 || colon == typeAndUri.length() - 1) {
            throw new ParameterException(
                spec.commandLine(),
                "--catalog "
                    + name
                    + "=...: write NAME=TYPE:URI, e.g. lake=iceberg-rest:http://127.0.0.1:8181 or"
                    + " lake=iceberg:/data/warehouse");
          }
          String type = typeAndUri.substring(0, colon).replace('-', '_');
          String uri = typeAndUri.substring(colon + 1);
          ctx.attachCatalog(name, type, uri, options.getOrDefault(name, Map.of()));
        });
  }

  /** The --catalog-option values grouped by catalog; one for a catalog not given fails. */
  private Map<String, Map<String, String>> catalogOptions(CommandSpec spec) {
    Map<String, Map<String, String>> out = new LinkedHashMap<>();
    catalogOptions.forEach(
        (key, value) -> {
          int dot = key.indexOf('.');
          String catalog = dot < 0 ? "" : key.substring(0, dot);
          if (dot <= 0 || dot == key.length() - 1 || !catalogs.containsKey(catalog)) {
            // The value may be a secret: the message shows the key only.
            throw new ParameterException(
                spec.commandLine(),
                "--catalog-option "
                    + key
                    + "=...: write NAME.KEY=VALUE where NAME is a catalog given by --catalog"
                    + " NAME=TYPE:URI");
          }
          out.computeIfAbsent(catalog, c -> new LinkedHashMap<>())
              .put(key.substring(dot + 1), value);
        });
    return out;
  }
}
