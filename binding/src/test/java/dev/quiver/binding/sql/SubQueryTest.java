package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Subqueries whose answers the random query generator found wrong, against hand-checked rows. */
@Timeout(60)
class SubQueryTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(2).withBatchSize(2));
    ctx.sql("create table o (id int not null, k int, x int)");
    ctx.sql("insert into o values (1, 1, 2), (2, 2, 2), (3, 3, 5), (4, 3, null), (5, null, 2)");
    ctx.sql("create table s (k int)");
    ctx.sql("insert into s values (1), (1), (3)");
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  /** The rows of {@code sql}, each as its values joined by '|', in row order. */
  private List<String> rows(String sql) {
    return SqlRows.of(ctx.sql(sql));
  }

  // A correlated subquery selecting a constant: Calcite's decorrelator compared the outer value
  // with the correlation column instead of the constant.

  @Test
  void notInCorrelatedSubqueryOfAConstant() {
    assertThat(
            rows("select id from o where x not in (select 2 from s where s.k = o.k) order by id"))
        .containsExactly("2", "3", "5");
  }

  @Test
  void inCorrelatedSubqueryOfAConstantIsThreeValued() {
    assertThat(rows("select id, x in (select 2 from s where s.k = o.k) from o order by id"))
        .containsExactly("1|true", "2|false", "3|false", "4|null", "5|false");
  }

  @Test
  void allAndAnyOverCorrelatedConstants() {
    assertThat(
            rows("select id from o where x <> all (select 2 from s where s.k = o.k) order by id"))
        .containsExactly("2", "3", "5");
    assertThat(rows("select id from o where x > any (select 2 from s where s.k = o.k) order by id"))
        .containsExactly("3");
    assertThat(
            rows(
                "select id, x = any (select cast(null as int) from s where s.k = o.k) from o"
                    + " order by id"))
        .containsExactly("1|null", "2|false", "3|null", "4|null", "5|false");
  }
}
