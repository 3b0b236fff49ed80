package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.CsvTable;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code FROM cat.ns.t FOR VERSION AS OF id} and {@code FOR TIMESTAMP AS OF} on an attached catalog
 * with two versions of one table: the three-part name reaches the catalog as a table name (not as a
 * struct field reference {@code cat['ns']['t']}), with and without an alias, and an unknown table
 * is an {@link UnknownTableException} naming it.
 */
class TimeTravelTest {
  @TempDir Path tmp;
  private SessionContext ctx;

  /** Table db.events: version 1 has two rows, version 2 (current, from time 2000) three. */
  private record Versions(TableProvider v1, TableProvider v2) implements TableCatalog {
    @Override
    public List<String> namespaces() {
      return List.of("db");
    }

    @Override
    public List<String> tables(String namespace) {
      return namespace.equals("db") ? List.of("events") : List.of();
    }

    @Override
    public TableProvider table(String namespace, String name) {
      return tables(namespace).contains(name) ? v2 : null;
    }

    @Override
    public TableProvider tableAtSnapshot(String namespace, String name, long snapshotId) {
      if (table(namespace, name) == null) {
        return null;
      }
      return Map.of(1L, v1, 2L, v2).get(snapshotId);
    }

    @Override
    public TableProvider tableAsOf(String namespace, String name, long epochMillis) {
      return table(namespace, name) == null ? null : epochMillis < 2000 ? v1 : v2;
    }

    @Override
    public String toString() {
      return "lake";
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    Path v1 = Files.writeString(tmp.resolve("v1.csv"), "id,name\n1,a\n2,b\n");
    Path v2 = Files.writeString(tmp.resolve("v2.csv"), "id,name\n1,a\n2,b\n3,c\n");
    ctx = new SessionContext(new SessionConfig());
    ctx.attachCatalog(
        "lake", new Versions(CsvTable.open(v1.toString()), CsvTable.open(v2.toString())));
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  @Test
  void forVersionAsOfNamesTheCatalogsTable() {
    assertThat(SameRows.quiver(ctx, "SELECT count(*) FROM lake.db.events")).containsExactly("3");
    assertThat(SameRows.quiver(ctx, "SELECT count(*) FROM lake.db.events FOR VERSION AS OF 1"))
        .containsExactly("2");
    assertThat(
            SameRows.quiver(
                ctx,
                "SELECT max(e.id) FROM lake.db.events FOR VERSION AS OF 1 AS e WHERE e.id > 0"))
        .containsExactly("2");
    assertThat(
            SameRows.quiver(
                ctx,
                "SELECT events.name FROM lake.db.events FOR VERSION AS OF 2 WHERE events.id = 3"))
        .containsExactly("c");
    assertThat(
            SameRows.quiver(
                ctx,
                "SELECT count(*) FROM lake.db.events FOR TIMESTAMP AS OF TIMESTAMP"
                    + " '1970-01-01 00:00:01'"))
        .containsExactly("2");
  }

  @Test
  void unknownTableAtAVersionIsTyped() {
    assertThatThrownBy(() -> ctx.sql("SELECT * FROM lake.db.evnts FOR VERSION AS OF 1"))
        .isInstanceOf(UnknownTableException.class)
        .hasMessageContaining("lake.db.evnts");
  }
}
