package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.errors.UnknownSettingException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Forms DuckDB and PostgreSQL users type, checked against DuckDB's answer where it has one. */
@Timeout(60)
class EverydayFormsTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext();
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  /** Column names, then each row's values joined by '|'. */
  private List<String> quiver(String sql) {
    DataFrame df = ctx.sql(sql);
    List<String> out = new ArrayList<>();
    out.add(String.join(",", df.schema().getFields().stream().map(Field::getName).toList()));
    out.addAll(SqlRows.of(df));
    return out;
  }

  private static List<String> duckdb(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        java.sql.Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      int n = r.getMetaData().getColumnCount();
      List<String> out = new ArrayList<>();
      List<String> names = new ArrayList<>();
      for (int i = 1; i <= n; i++) {
        names.add(r.getMetaData().getColumnLabel(i));
      }
      out.add(String.join(",", names));
      while (r.next()) {
        List<String> values = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          values.add(String.valueOf(r.getObject(i)));
        }
        out.add(String.join("|", values));
      }
      return out;
    }
  }

  private void sameAsDuckDb(String sql) throws Exception {
    assertThat(quiver(sql)).as(sql).isEqualTo(duckdb(sql));
  }

  @Test
  void whereFalseWithoutFromIsAnEmptyResultWithItsColumns() throws Exception {
    sameAsDuckDb("SELECT 1 AS a WHERE false");
    sameAsDuckDb("SELECT 1 AS a, 'x' AS b WHERE 1 = 0");
    sameAsDuckDb("SELECT 1 AS a WHERE true");
    sameAsDuckDb("SELECT 'from where' AS w WHERE 1 = 1");
    sameAsDuckDb("SELECT count(*) AS n FROM (SELECT 1 AS a WHERE false) AS s WHERE 2 > 1");
    sameAsDuckDb("SELECT extract(year FROM DATE '2024-01-02') AS y WHERE true");
  }

  @Test
  void orderByAllSortsByEveryColumnLeftToRight() throws Exception {
    String values = "(VALUES (2, 'b'), (1, 'z'), (2, 'a'), (1, 'y')) t(x, y)";
    sameAsDuckDb("SELECT x, y FROM " + values + " ORDER BY ALL");
    sameAsDuckDb("SELECT y, x FROM " + values + " ORDER BY ALL DESC");
    sameAsDuckDb("SELECT x, y FROM " + values + " GROUP BY ALL ORDER BY ALL");
  }

  @Test
  void chrIsTheCharacterOfACodePoint() throws Exception {
    sameAsDuckDb("SELECT chr(65) AS c, chr(97) AS d");
  }

  @Test
  void versionNamesQuiver() {
    List<String> rows = quiver("SELECT version() AS v");
    assertThat(rows).hasSize(2);
    assertThat(rows.get(1)).startsWith("Quiver ");
  }

  @Test
  void showNameAndShowAllGiveSettingsAndTheirValues() {
    assertThat(quiver("SHOW batch_size"))
        .containsExactly("name,value", "quiver.execution.batch_size|8192");
    ctx.sql("SET batch_size = 100");
    assertThat(quiver("SHOW quiver.execution.batch_size"))
        .containsExactly("name,value", "quiver.execution.batch_size|100");
    ctx.sql("SET quiver.s3.secret_access_key = 'hunter2'");
    List<String> all = quiver("SHOW ALL");
    assertThat(all)
        .contains("quiver.execution.batch_size|100", "quiver.s3.secret_access_key|***")
        .noneMatch(r -> r.contains("hunter2"));
    assertThatThrownBy(() -> ctx.sql("SHOW batch_sise"))
        .isInstanceOf(UnknownSettingException.class)
        .hasMessageContaining("batch_size");
  }
}
