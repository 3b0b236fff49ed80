package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.dataframe.Expr;
import dev.quiver.binding.settings.SessionConfig;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The batches a query returns carry exactly {@link DataFrame#schema()}: names, types and
 * nullability (regression: {@code SELECT o_orderkey AS k} returned batches whose column was named
 * {@code o_orderkey}, because the optimizer dropped the projection that only renamed).
 */
@Timeout(60)
class ResultSchemaTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(3).withBatchSize(2));
    ctx.sql(
        "CREATE TABLE orders(o_orderkey INTEGER NOT NULL, o_custkey INTEGER, o_comment VARCHAR)");
    ctx.sql("INSERT INTO orders VALUES (1, 10, 'a'), (2, NULL, 'b'), (3, 30, NULL), (4, 10, 'd')");
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT o_orderkey AS k FROM orders",
        "SELECT o_orderkey AS k, o_custkey AS c, o_comment AS note FROM orders",
        "SELECT o_custkey AS o_orderkey, o_orderkey AS o_custkey FROM orders",
        "SELECT k FROM (SELECT o_orderkey AS k FROM orders) t WHERE k > 1",
        "SELECT o_custkey AS c FROM orders WHERE o_custkey IS NOT NULL",
        "SELECT o_custkey AS c, count(*) AS n FROM orders GROUP BY o_custkey",
        "SELECT a.o_orderkey AS left_key, b.o_orderkey AS right_key FROM orders a"
            + " JOIN orders b ON a.o_custkey = b.o_custkey",
        "SELECT o_orderkey AS k FROM orders ORDER BY o_orderkey DESC LIMIT 2",
        "SELECT o_orderkey AS k FROM orders UNION ALL SELECT o_custkey FROM orders",
        "SELECT 'x' AS lit, o_orderkey AS k FROM orders"
      })
  void batchesCarryTheQuerySchema(String sql) throws Exception {
    DataFrame df = ctx.sql(sql);
    List<VectorSchemaRoot> batches = df.collect();
    try {
      assertThat(batches).isNotEmpty();
      for (VectorSchemaRoot b : batches) {
        assertThat(b.getSchema()).isEqualTo(df.schema());
        for (var f : df.schema().getFields()) {
          assertThat(b.getVector(f.getName())).as(f.getName()).isNotNull();
        }
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    try (ArrowReader reader = df.executeStream()) {
      assertThat(reader.getVectorSchemaRoot().getSchema()).isEqualTo(df.schema());
      while (reader.loadNextBatch()) {
        assertThat(reader.getVectorSchemaRoot().getSchema()).isEqualTo(df.schema());
      }
    }
  }

  @Test
  void aliasReachesTheBatchesThroughTheDataFrameApi() {
    DataFrame df = ctx.table("orders").select(Expr.col("o_orderkey").alias("k"));
    List<VectorSchemaRoot> batches = df.collect();
    try {
      assertThat(batches).allSatisfy(b -> assertThat(b.getSchema()).isEqualTo(df.schema()));
      assertThat(batches.get(0).getVector("k")).isNotNull();
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }
}
