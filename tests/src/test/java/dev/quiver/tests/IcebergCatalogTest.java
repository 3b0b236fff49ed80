package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.iceberg.catalog.WarehouseCatalog;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** A warehouse folder of Iceberg tables attached as a catalog: tables named cat.namespace.table. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IcebergCatalogTest {
  @TempDir static Path tmp;
  IcebergModel events;
  IcebergModel times;
  SessionContext ctx;
  Connection duck;

  @BeforeAll
  void write() throws Exception {
    Path wh = tmp.resolve("warehouse");
    events = IcebergTables.events(wh.resolve("db/events").toString());
    times = IcebergTables.times(wh.resolve("other/times").toString());
    ctx = new SessionContext();
    ctx.attachCatalog("lake", new WarehouseCatalog("lake", wh.toString(), null));
    duck = DriverManager.getConnection("jdbc:duckdb:");
  }

  @AfterAll
  void close() throws Exception {
    ctx.close();
    duck.close();
  }

  @Test
  void tablesByThreePartNamesMatchDuckDb() throws Exception {
    IcebergReadTest.compare(
        ctx,
        duck,
        "lake.db.events",
        events.table.schema(),
        events.live,
        IcebergReadTest.EVENT_QUERIES);
    IcebergReadTest.compare(
        ctx,
        duck,
        "lake.other.times",
        times.table.schema(),
        times.live,
        IcebergReadTest.TIME_QUERIES);
  }

  @Test
  void everyStatementSeesTheCurrentSnapshot() throws Exception {
    Path wh = tmp.resolve("warehouse");
    IcebergModel grow = IcebergTables.times(wh.resolve("db/grow").toString());
    String count = "SELECT count(*) FROM lake.db.grow";
    assertThat(SameRows.quiver(ctx, count)).containsExactly(Integer.toString(grow.live.size()));
    grow.append(List.of(Map.of("id", 1000L, "flag", true), Map.of("id", 1001L, "flag", false)));
    assertThat(SameRows.quiver(ctx, count)).containsExactly(Integer.toString(grow.live.size()));
  }

  @Test
  void unknownNamesFailNamingThem() {
    assertThatThrownBy(() -> ctx.sql("SELECT * FROM lake.db.nothing"))
        .hasMessageContaining("nothing");
    assertThatThrownBy(() -> ctx.sql("SELECT * FROM lake.nowhere.events"))
        .hasMessageContaining("nowhere");
  }
}
