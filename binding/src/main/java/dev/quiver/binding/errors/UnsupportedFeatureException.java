package dev.quiver.binding.errors;

/**
 * A table uses a feature of its format that Quiver does not read or write yet (for example an
 * Iceberg table format version, a delete file kind or a column type): the query fails rather than
 * answer without it.
 */
public class UnsupportedFeatureException extends DataSourceException {
  private static final long serialVersionUID = 1L;

  /** Creates the error; the message names the feature and the table or file using it. */
  public UnsupportedFeatureException(String message) {
    super(message);
  }
}
