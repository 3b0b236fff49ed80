package dev.quiver.binding.datasource;

import java.util.List;
import java.util.Map;

/**
 * The keys and column defaults a memory table was created with ({@code CREATE TABLE}); NOT NULL is
 * the nullability of the table's schema.
 *
 * @param keys the PRIMARY KEY (at most one) and UNIQUE keys, each a list of column names
 * @param defaults the DEFAULT expression (SQL text) of each column that has one, by column name
 */
public record TableConstraints(List<Key> keys, Map<String, String> defaults) {
  /** No keys, no defaults. */
  public static final TableConstraints NONE = new TableConstraints(List.of(), Map.of());

  /** A PRIMARY KEY or UNIQUE key over {@code columns}. */
  public record Key(boolean primary, List<String> columns) {
    /** Copies the columns. */
    public Key {
      columns = List.copyOf(columns);
    }

    /** {@code PRIMARY KEY (a, b)} or {@code UNIQUE (a)}. */
    @Override
    public String toString() {
      return (primary ? "PRIMARY KEY (" : "UNIQUE (") + String.join(", ", columns) + ")";
    }
  }

  /** Copies the lists. */
  public TableConstraints {
    keys = List.copyOf(keys);
    defaults = Map.copyOf(defaults);
  }

  /** The PRIMARY KEY, or null. */
  public Key primaryKey() {
    return keys.stream().filter(Key::primary).findFirst().orElse(null);
  }
}
