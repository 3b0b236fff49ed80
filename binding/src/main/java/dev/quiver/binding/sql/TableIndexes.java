package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.MemoryTable;
import dev.quiver.binding.datasource.TableConstraints;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.statement.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code CREATE [UNIQUE] INDEX} and {@code DROP INDEX}, accepted so that scripts written for
 * SQLite, PostgreSQL or DuckDB run: an index belongs to a session table (a {@link MemoryTable}); a
 * UNIQUE one is enforced on every write as a UNIQUE key is, a plain one is metadata only (Quiver
 * scans do not use indexes). Index names are unique among the session's tables, as in PostgreSQL.
 */
final class TableIndexes {
  private TableIndexes() {}

  /** Runs {@code create} over the session's {@code catalog}. */
  static void create(Catalog catalog, Statement.CreateIndex create) {
    String statement = (create.unique() ? "CREATE UNIQUE INDEX " : "CREATE INDEX ") + create.name();
    TableProvider provider =
        catalog.view(create.table()) != null ? null : catalog.provider(create.table());
    if (!(provider instanceof MemoryTable table)) {
      throw new UnsupportedFeatureException(
          statement
              + ": indexes are for session tables (CREATE TABLE); "
              + create.table()
              + " is "
              + (catalog.view(create.table()) != null ? "a view" : "read from files or a catalog"));
    }
    synchronized (catalog) {
      if (owner(catalog, create.name()) != null) {
        if (create.ifNotExists()) {
          return;
        }
        throw new QuiverException(
            "Index '"
                + create.name()
                + "' already exists; DROP INDEX it first, or use CREATE INDEX IF NOT EXISTS");
      }
      List<String> columns = new ArrayList<>();
      List<String> names = catalog.columns(create.table());
      for (String c : create.columns()) {
        String column = names.stream().filter(c::equalsIgnoreCase).findFirst().orElse(null);
        if (column == null) {
          throw new UnknownColumnException(
              c, " in table " + create.table(), Suggestions.closest(c, names));
        }
        columns.add(column);
      }
      table.addIndex(
          statement,
          create.table(),
          new TableConstraints.Index(create.name(), create.unique(), columns));
    }
  }

  /** Runs {@code drop} over the session's {@code catalog}. */
  static void drop(Catalog catalog, Statement.DropIndex drop) {
    synchronized (catalog) {
      MemoryTable table = owner(catalog, drop.name());
      if (table != null) {
        table.dropIndex(drop.name());
      } else if (!drop.ifExists()) {
        throw new QuiverException(
            "Index '"
                + drop.name()
                + "' does not exist; DROP INDEX IF EXISTS ignores a missing one");
      }
    }
  }

  /** The session table that has index {@code name}, or null. */
  private static MemoryTable owner(Catalog catalog, String name) {
    for (String t : catalog.names()) {
      Catalog.TableEntry entry = catalog.table(t);
      if (entry != null
          && entry.provider() instanceof MemoryTable m
          && m.constraints().index(name) != null) {
        return m;
      }
    }
    return null;
  }
}
