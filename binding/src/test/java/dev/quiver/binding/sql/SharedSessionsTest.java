package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.Row;
import dev.quiver.binding.errors.QueryTypeException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sessions sharing one catalog (newSession), statement kinds, parameters bound as typed literals,
 * rows() as Java values, and Unicode string literals.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedSessionsTest {
  @Test
  void newSessionsShareTablesButNotSettings() {
    try (SessionContext owner = new SessionContext()) {
      try (SessionContext a = owner.newSession();
          SessionContext b = owner.newSession()) {
        a.sql("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'x'), (2, 'y')) AS v (id, name)");
        b.sql("INSERT INTO t VALUES (3, 'z')");
        assertThat(owner.sql("SELECT count(*) AS n FROM t").rows().get(0).get("n")).isEqualTo(3L);
        a.sql("SET target_partitions = 3");
        assertThat(a.config().get("target_partitions")).isEqualTo("3");
        assertThat(b.config().get("target_partitions")).isNotEqualTo("3");
        b.sql("CREATE VIEW big AS SELECT id FROM t WHERE id > 1");
        assertThat(a.sql("SELECT count(*) AS n FROM big").rows().get(0).get(0)).isEqualTo(2L);
      }
      // The tables outlive the sessions that created them; the owner closes them.
      assertThat(owner.tableNames()).contains("t", "big");
      assertThat(owner.sql("SELECT max(id) AS m FROM t").rows().get(0).get(0)).isEqualTo(3);
    }
  }

  @Test
  void statementKinds() {
    try (SessionContext ctx = new SessionContext()) {
      assertThat(ctx.isQuery("SELECT 1")).isTrue();
      assertThat(ctx.isQuery("  -- c\n WITH x AS (SELECT 1) SELECT * FROM x")).isTrue();
      assertThat(ctx.isQuery("EXPLAIN SELECT 1")).isTrue();
      assertThat(ctx.isQuery("VALUES (1)")).isTrue();
      assertThat(ctx.isQuery("/* c */ insert into t values (1)")).isFalse();
      assertThat(ctx.isQuery("SET a.b = 1")).isFalse();
      assertThat(ctx.isQuery("CREATE TABLE t AS SELECT 1")).isFalse();
      assertThat(ctx.isQuery("DROP TABLE t;")).isFalse();
    }
  }

  @Test
  void parametersAreTypedFromWhereTheyStandAndBoundAsLiterals() {
    try (SessionContext ctx = new SessionContext()) {
      ctx.sql(
          "CREATE TABLE p (id INT, price DECIMAL(10, 2), shipped DATE, at TIMESTAMP, name VARCHAR)");
      String insert = "INSERT INTO p VALUES (?, ?, ?, ?, ?)";
      assertThat(ctx.parameterSchema(insert).getFields())
          .extracting(f -> f.getType())
          .containsExactly(
              new ArrowType.Int(32, true),
              new ArrowType.Decimal(10, 2, 128),
              new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY),
              new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.MICROSECOND, null),
              ArrowType.Utf8.INSTANCE);
      ctx.sql(
          insert,
          List.of(
              1,
              new BigDecimal("9.99"),
              LocalDate.of(2024, 2, 29),
              LocalDateTime.of(2024, 2, 29, 1, 2, 3),
              "it's ? -- not a parameter"));
      ctx.sql(insert, Arrays.asList(2, null, null, null, null));
      String query = "SELECT id, name FROM p WHERE price < ? OR shipped = ? ORDER BY id";
      assertThat(ctx.parameterSchema(query).getFields()).hasSize(2);
      List<Row> rows =
          ctx.sql(query, List.of(new BigDecimal("10"), LocalDate.of(2000, 1, 1))).rows();
      assertThat(rows).hasSize(1);
      assertThat(rows.get(0).get("name")).isEqualTo("it's ? -- not a parameter");
      Row all = ctx.sql("SELECT * FROM p WHERE id = ?", List.of(1)).rows().get(0);
      assertThat(all.get("shipped", LocalDate.class)).isEqualTo(LocalDate.of(2024, 2, 29));
      assertThat(all.get("at")).isEqualTo(LocalDateTime.of(2024, 2, 29, 1, 2, 3));
      assertThat(all.get("price")).isEqualTo(new BigDecimal("9.99"));
      assertThatThrownBy(() -> ctx.parameterSchema("SELECT ?"))
          .isInstanceOf(QueryTypeException.class)
          .hasMessageContaining("CAST(? AS type)");
      assertThat(ctx.sql("SELECT CAST(? AS INT) + 1 AS v", List.of(41)).rows().get(0).get(0))
          .isEqualTo(42);
    }
  }

  @Test
  void unicodeStringLiterals() {
    try (SessionContext ctx = new SessionContext()) {
      String text = "héllo wörld ✓ 日本 😀";
      assertThat(ctx.sql("SELECT '" + text + "' AS s").rows().get(0).get(0)).isEqualTo(text);
      assertThat(ctx.sql("SELECT CAST(? AS VARCHAR) AS s", List.of(text)).rows().get(0).get(0))
          .isEqualTo(text);
    }
  }
}
