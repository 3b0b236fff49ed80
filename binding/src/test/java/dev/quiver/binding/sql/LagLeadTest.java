package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** LAG and LEAD with a default over values with NULLs (found by the random query generator). */
@Timeout(60)
class LagLeadTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(2));
    ctx.sql("create table t (id int not null, s varchar, x int)");
    ctx.sql("insert into t values (1, 'a', 10), (2, null, null), (3, 'ccc', 30), (4, 'dd', 40)");
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  private List<String> rows(String sql) {
    return SqlRows.of(ctx.sql(sql));
  }

  @Test
  void defaultsDoNotShiftTheStringsAfterThem() {
    // The default was written over the gathered strings in place, which moved the next ones.
    assertThat(
            rows(
                "select id, lag(s, 1, 'zz') over (order by id), lead(s, 2, 'yy') over (order by id)"
                    + " from t order by id"))
        .containsExactly("1|zz|ccc", "2|a|dd", "3|null|yy", "4|ccc|yy");
  }

  @Test
  void aNullValueIsNotTheDefault() {
    // Typed NOT NULL because the default is, IS NULL was folded to FALSE.
    assertThat(
            rows(
                "select id from (select id, lag(x, 1, -1) over (order by id) as l from t)"
                    + " where l is null"))
        .containsExactly("3");
    assertThat(
            rows(
                "select id from (select id, lead(x, 1, -1) over (order by id) as l from t)"
                    + " where l is not null order by id"))
        .containsExactly("2", "3", "4");
  }
}
