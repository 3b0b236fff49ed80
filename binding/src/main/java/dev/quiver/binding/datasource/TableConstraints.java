package dev.quiver.binding.datasource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The keys and column defaults a memory table was created with ({@code CREATE TABLE}) and the
 * indexes made on it since ({@code CREATE INDEX}); NOT NULL is the nullability of the table's
 * schema.
 *
 * @param keys the PRIMARY KEY (at most one) and UNIQUE keys, each a list of column names
 * @param defaults the DEFAULT expression (SQL text) of each column that has one, by column name
 * @param indexes the table's indexes: a UNIQUE one is checked as a UNIQUE key is, a plain one is
 *     metadata only (scans do not use indexes)
 */
public record TableConstraints(List<Key> keys, Map<String, String> defaults, List<Index> indexes) {
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

  /** {@code CREATE [UNIQUE] INDEX name ON table (columns)}. */
  public record Index(String name, boolean unique, List<String> columns) {
    /** Copies the columns. */
    public Index {
      columns = List.copyOf(columns);
    }

    /** {@code UNIQUE INDEX name (a, b)} or {@code INDEX name (a)}. */
    @Override
    public String toString() {
      return (unique ? "UNIQUE INDEX " : "INDEX ") + name + " (" + String.join(", ", columns) + ")";
    }
  }

  /** Keys and defaults without indexes. */
  public TableConstraints(List<Key> keys, Map<String, String> defaults) {
    this(keys, defaults, List.of());
  }

  /** Copies the lists. */
  public TableConstraints {
    keys = List.copyOf(keys);
    defaults = Map.copyOf(defaults);
    indexes = List.copyOf(indexes);
  }

  /** These constraints and {@code index}. */
  public TableConstraints withIndex(Index index) {
    List<Index> more = new ArrayList<>(indexes);
    more.add(index);
    return new TableConstraints(keys, defaults, more);
  }

  /** These constraints without index {@code name}. */
  public TableConstraints withoutIndex(String name) {
    return new TableConstraints(
        keys, defaults, indexes.stream().filter(i -> !i.name().equals(name)).toList());
  }

  /** The index called {@code name}, or null. */
  public Index index(String name) {
    return indexes.stream().filter(i -> i.name().equals(name)).findFirst().orElse(null);
  }
}
