package dev.quiver.binding.datasource;

import dev.quiver.binding.DataSourceException;

/**
 * How CSV files are laid out.
 *
 * @param delimiter field separator, a single ASCII character other than a quote or line break
 * @param hasHeader whether every file starts with a line of column names
 * @param inferenceRows how many data rows schema inference looks at
 */
public record CsvOptions(char delimiter, boolean hasHeader, int inferenceRows) {
  /** Comma-separated with a header; inference over the first 1000 rows. */
  public static final CsvOptions DEFAULT = new CsvOptions(',', true, 1000);

  /** Validates the options. */
  public CsvOptions {
    if (delimiter > 127 || delimiter == '"' || delimiter == '\n' || delimiter == '\r') {
      throw new DataSourceException(
          "CSV delimiter '"
              + delimiter
              + "' is not allowed; use a single ASCII character other than a quote or line break");
    }
    if (inferenceRows < 1) {
      throw new DataSourceException(
          "CSV schema inference needs at least 1 row; got " + inferenceRows);
    }
  }

  /** These options with another delimiter. */
  public CsvOptions withDelimiter(char d) {
    return new CsvOptions(d, hasHeader, inferenceRows);
  }

  /** These options with or without a header line. */
  public CsvOptions withHeader(boolean header) {
    return new CsvOptions(delimiter, header, inferenceRows);
  }
}
