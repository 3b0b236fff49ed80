package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.InvalidSettingException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import dev.quiver.examples.tpch.TpchData;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Distributed queries with each {@code quiver.shuffle.compression} on an embedded cluster of 2 give
 * the rows the in-process engine gives; a bad value is a typed error naming the setting.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShuffleCompressionTest {
  /** Hash shuffles on both join sides, a partial/final aggregate and a final coalesce. */
  private static final String SQL =
      "SELECT o_orderpriority, l_returnflag, count(*) AS n, sum(l_quantity) AS qty,"
          + " sum(l_extendedprice * (1 - l_discount)) AS revenue, max(o_comment) AS c"
          + " FROM orders JOIN lineitem ON l_orderkey = o_orderkey"
          + " GROUP BY o_orderpriority, l_returnflag ORDER BY o_orderpriority, l_returnflag";

  private Path dir;
  private Injector injector;
  private String expected;

  @BeforeAll
  void start() {
    dir = TpchFixture.data(0.01);
    // Small tasks and no broadcast, so that both join sides are hash-shuffled.
    injector =
        Guice.createInjector(
            new EmbeddedClusterModule(
                2,
                new SessionConfig()
                    .set(DistributedSettings.BYTES_PER_TASK, "64k")
                    .set(DistributedSettings.BROADCAST_THRESHOLD_ROWS, "0")));
    try (SessionContext local = register(new SessionContext())) {
      expected = rows(local);
    }
  }

  @AfterAll
  void stop() {
    injector.getInstance(ClusterLifecycle.class).close();
  }

  private SessionContext register(SessionContext ctx) {
    for (String table : TpchData.TABLES) {
      ctx.registerParquet(table, TpchData.tableDirectory(dir, table).toString());
    }
    return ctx;
  }

  private static String rows(SessionContext ctx) {
    List<VectorSchemaRoot> batches = ctx.sql(SQL).collect();
    StringBuilder out = new StringBuilder();
    try {
      for (VectorSchemaRoot b : batches) {
        out.append(b.contentToTSVString());
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    return out.toString();
  }

  @ParameterizedTest
  @EnumSource(ShuffleCompression.class)
  void sameRowsWithEachCompression(ShuffleCompression compression) {
    SessionContext ctx = register(injector.getInstance(SessionContext.class));
    ctx.sql("SET " + ShuffleCompression.SETTING + " = '" + compression.settingValue() + "'");
    assertThat(ctx.sql(SQL).explain()).contains("DistributedQueryExec");
    String actual = rows(ctx);
    assertThat(expected).contains("1-URGENT");
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void unknownCompressionIsATypedErrorNamingTheSetting() {
    SessionContext ctx = register(injector.getInstance(SessionContext.class));
    // Refused when set, before any query plans with it.
    assertThatThrownBy(() -> ctx.sql("SET " + ShuffleCompression.SETTING + " = 'snappy'"))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining(ShuffleCompression.SETTING)
        .hasMessageContaining("snappy")
        .hasMessageContaining("one of none, lz4, zstd");
    assertThat(ctx.sql(SQL).count()).isPositive();
  }
}
