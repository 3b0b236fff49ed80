package dev.quiver.binding.errors;

import java.util.List;

/** A statement named a catalog (or a catalog's namespace) the session has not attached. */
public class UnknownCatalogException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final String catalog;

  /** Creates the error, listing the closest attached names as suggestions. */
  public UnknownCatalogException(String catalog, List<String> suggestions) {
    super("Catalog '" + catalog + "' not found" + Suggestions.format(suggestions));
    this.catalog = catalog;
  }

  /** Creates the error with its own message (an unknown namespace of an attached catalog). */
  public UnknownCatalogException(String catalog, String message) {
    super(message);
    this.catalog = catalog;
  }

  /** The name that was not found. */
  public String catalog() {
    return catalog;
  }
}
