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
import org.junit.jupiter.api.io.TempDir;

/** Forms DuckDB and PostgreSQL users type, checked against DuckDB's answer where it has one. */
@Timeout(60)
class EverydayFormsTest {
  @TempDir java.nio.file.Path dir;
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
  void currentSettingIsTheSessionsValueAsText() {
    assertThat(quiver("SELECT current_setting('batch_size') AS v")).containsExactly("v", "8192");
    ctx.sql("SET batch_size = 100");
    assertThat(
            quiver(
                "SELECT CAST(current_setting('quiver.execution.batch_size') AS INT) + 1 AS n"
                    + " WHERE current_setting('batch_size') = '100'"))
        .containsExactly("n", "101");
    ctx.sql("SET quiver.s3.secret_access_key = 'hunter2'");
    assertThat(quiver("SELECT current_setting('quiver.s3.secret_access_key') AS s"))
        .containsExactly("s", "***");
    assertThatThrownBy(() -> ctx.sql("SELECT current_setting('batch_sise')"))
        .isInstanceOf(UnknownSettingException.class)
        .hasMessageContaining("batch_size");
    assertThatThrownBy(() -> ctx.sql("SELECT current_setting(x) FROM (VALUES ('a')) t(x)"))
        .hasMessageContaining("current_setting takes one setting name as a string literal");
  }

  /** Quiver's {@code FROM 'file'} and DuckDB's {@code read_csv_auto} on a file written here. */
  private void sniffedAsDuckDb(String name, String content, boolean sameNames) throws Exception {
    java.nio.file.Path file = dir.resolve(name);
    java.nio.file.Files.writeString(file, content);
    String path = file.toString().replace("'", "''");
    List<String> q = quiver("SELECT * FROM '" + path + "' ORDER BY 1");
    List<String> d = duckdb("SELECT * FROM read_csv_auto('" + path + "') ORDER BY 1");
    if (sameNames) {
      assertThat(q).as(name).isEqualTo(d);
    } else {
      assertThat(q.subList(1, q.size())).as(name).isEqualTo(d.subList(1, d.size()));
    }
    assertThat(quiver("SELECT * FROM read_csv('" + path + "') ORDER BY 1")).as(name).isEqualTo(q);
  }

  @Test
  void csvReadWithoutOptionsSniffsTheDelimiterAndHeaderAsDuckDb() throws Exception {
    sniffedAsDuckDb("semi.csv", "id;name;price\n2;b;3.5\n1;a;2.5\n", true);
    sniffedAsDuckDb("pipe.csv", "id|name\n1|x\n2|y\n", true);
    sniffedAsDuckDb("tab.tsv", "id\tname\n1\tx\n2\ty\n", true);
    sniffedAsDuckDb("quoted.csv", "a;b\n\"x,y\";1\n\"z,w\";2\n", true);
    sniffedAsDuckDb("comma.csv", "k,v\n1,2\n3,4\n", true);
    // Without a header both read the first line as data (DuckDB names the columns column0...).
    sniffedAsDuckDb("noheader.csv", "1;a;2.5\n2;b;3.5\n", false);
    assertThat(quiver("SELECT * FROM '" + dir.resolve("noheader.csv") + "' ORDER BY 1").get(0))
        .isEqualTo("column_1,column_2,column_3");
  }

  @Test
  void csvOptionsGivenAreKeptWhateverTheFileSuggests() {
    java.nio.file.Path file = dir.resolve("opts.csv");
    try {
      java.nio.file.Files.writeString(file, "1;2\n3;4\n");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(quiver("SELECT * FROM read_csv('" + file + "', delim => ',', header => true)"))
        .containsExactly("1;2", "3;4");
    assertThat(quiver("SELECT * FROM read_csv('" + file + "', header => true)"))
        .containsExactly("1,2", "3|4");
  }

  /** Each row's first two cells: DESCRIBE's column_name and column_type. */
  private static List<String> nameAndType(List<String> rows) {
    List<String> out = new ArrayList<>();
    for (String row : rows) {
      String[] cells = row.split(out.isEmpty() ? "," : "\\|");
      out.add(cells[0] + " " + cells[1]);
    }
    return out;
  }

  @Test
  void describeAQueryAFileOrATableFunctionAsDuckDb() throws Exception {
    String query = "SELECT 1 AS a, 'x' AS b, CAST(2.5 AS DOUBLE) AS c, DATE '2024-01-02' AS d";
    assertThat(nameAndType(quiver("DESCRIBE " + query)))
        .isEqualTo(nameAndType(duckdb("DESCRIBE " + query)))
        .startsWith("column_name column_type", "a INTEGER");
    String parquet = dir.resolve("d.parquet").toString();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        java.sql.Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT 1::INTEGER AS id, 'a' AS name, 2.5::DOUBLE AS price) TO '"
              + parquet
              + "' (FORMAT PARQUET)");
    }
    assertThat(nameAndType(quiver("DESCRIBE '" + parquet + "'")))
        .isEqualTo(nameAndType(duckdb("DESCRIBE '" + parquet + "'")))
        .hasSize(4);
    java.nio.file.Path csv = dir.resolve("d.csv");
    java.nio.file.Files.writeString(csv, "id;name;price\n1;a;2.5\n");
    assertThat(nameAndType(quiver("DESCRIBE read_csv('" + csv + "')")))
        // This DuckDB describes a table function only in a SELECT.
        .isEqualTo(nameAndType(duckdb("DESCRIBE SELECT * FROM read_csv('" + csv + "')")))
        .contains("price DOUBLE");
    assertThat(nameAndType(quiver("DESCRIBE (SELECT id FROM '" + parquet + "')")))
        .containsExactly("column_name column_type", "id INTEGER");
  }

  @Test
  void orderByAllAfterAStarSortsByEveryColumnTheStarGives() throws Exception {
    String values = "(VALUES (2, 'b'), (1, 'z'), (2, 'a'), (1, 'y')) t(x, y)";
    sameAsDuckDb("SELECT * FROM " + values + " ORDER BY ALL");
    sameAsDuckDb("SELECT x + 1 AS z, * FROM " + values + " ORDER BY ALL DESC");
    sameAsDuckDb("SELECT t.* FROM " + values + " ORDER BY ALL LIMIT 3");
    sameAsDuckDb(
        "SELECT * FROM " + values + " UNION ALL SELECT * FROM " + values + " ORDER BY ALL");
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
