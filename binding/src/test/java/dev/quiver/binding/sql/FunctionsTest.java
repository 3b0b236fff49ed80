package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.settings.SessionConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The function registry ({@link QuiverFunctions#SUPPORTED}): every listed function runs (its
 * example, which names each alias), the README's tables are the registry rendered, and the
 * functions whose semantics DuckDB cannot check (PostgreSQL's to_char, MySQL's date_format, listagg
 * WITHIN GROUP, errors) give what their dialect defines. The rest is checked against DuckDB by the
 * SQL corpus (fn_* entries).
 */
@Timeout(120)
class FunctionsTest {
  private static final Path README = Path.of("..", "README.md").toAbsolutePath().normalize();
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(3).withBatchSize(2));
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  private List<String> rows(String sql) {
    List<VectorSchemaRoot> batches = ctx.sql(sql).collect();
    List<String> out = new ArrayList<>();
    try {
      for (VectorSchemaRoot b : batches) {
        for (int r = 0; r < b.getRowCount(); r++) {
          List<String> cells = new ArrayList<>();
          for (FieldVector v : b.getFieldVectors()) {
            Object o = v.getObject(r);
            if (o != null && v instanceof DateDayVector) {
              o = java.time.LocalDate.ofEpochDay((Integer) o);
            }
            cells.add(o == null ? "null" : o.toString());
          }
          out.add(String.join("|", cells));
        }
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    return out;
  }

  @Test
  void everyRegisteredFunctionRunsItsExampleWhichNamesEveryAlias() {
    assertThat(QuiverFunctions.SUPPORTED).hasSizeGreaterThan(50);
    // The table functions' examples read these.
    rows("COPY (SELECT 1 AS x, 'a' AS s) TO 'target/functions-example.parquet'");
    rows("COPY (SELECT 1 AS x, 'a' AS s) TO 'target/functions-example.csv'");
    List<String> failures = new ArrayList<>();
    for (QuiverFunctions.Function f : QuiverFunctions.SUPPORTED) {
      for (String name : f.names()) {
        assertThat(f.example().toLowerCase(Locale.ROOT)).as(f.names() + " example").contains(name);
      }
      try {
        assertThat(rows(f.example())).as(f.example()).isNotEmpty();
      } catch (RuntimeException | AssertionError e) {
        failures.add(f.example() + ": " + e.getMessage());
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void readmeListsTheRegisteredFunctions() throws IOException {
    String begin = "<!-- functions-table:";
    String end = "<!-- /functions-table -->";
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    int from = readme.indexOf(begin);
    int to = readme.indexOf(end);
    assertThat(from).as("README has the functions-table markers").isNotNegative();
    assertThat(to).isGreaterThan(from);
    int tableStart = readme.indexOf("-->", from) + "-->".length() + 1;
    String expected = QuiverFunctions.markdown();
    if (Boolean.getBoolean("quiver.functions.write")) {
      Files.writeString(
          README,
          readme.substring(0, tableStart) + expected + readme.substring(to),
          StandardCharsets.UTF_8);
      return;
    }
    assertThat(readme.substring(tableStart, to))
        .as("README's function tables (rewrite them with -Dquiver.functions.write=true)")
        .isEqualTo(expected);
  }

  @Test
  void toCharTakesPostgresTemplatePatterns() {
    assertThat(
            rows(
                "SELECT to_char(TIMESTAMP '2024-03-05 14:07:09.123', 'YYYY-MM-DD HH24:MI:SS.MS'),"
                    + " to_char(TIMESTAMP '2024-03-05 14:07:09', 'Dy, DD Mon YYYY HH12:MI AM'),"
                    + " to_char(DATE '2024-03-05', 'FMMonth FMDD, YYYY \"Q\"Q'),"
                    + " to_char(DATE '2024-03-05', 'Month|Day|DDD|IW')"))
        .containsExactly(
            "2024-03-05 14:07:09.123|Tue, 05 Mar 2024 02:07 PM|March 5, 2024 Q1|March    |Tuesday  |065|10");
  }

  @Test
  void dateFormatTakesMysqlSpecifiersAndStrftimeCs() {
    assertThat(
            rows(
                "SELECT date_format(TIMESTAMP '2024-03-05 14:07:09', '%W %M %e %Y %H:%i:%s %p'),"
                    + " strftime(TIMESTAMP '2024-03-05 04:07:09.5', '%F %T.%g %I%p %-H')"))
        .containsExactly("Tuesday March 5 2024 14:07:09 PM|2024-03-05 04:07:09.500 04AM 4");
    assertThatThrownBy(() -> rows("SELECT strftime(DATE '2024-03-05', '%Q')"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("'%Q'");
  }

  @Test
  void dateDiffCountsBoundariesAsDuckDb() {
    assertThat(
            rows(
                "SELECT date_diff('month', DATE '2024-01-31', DATE '2024-02-01'),"
                    + " date_diff('days', DATE '2024-03-01', DATE '2024-02-01'),"
                    + " datediff('hour', TIMESTAMP '2024-01-01 10:59:59', TIMESTAMP '2024-01-01 11:00:00'),"
                    + " DATE_DIFF('week', DATE '2024-01-07', DATE '2024-01-14')"))
        .containsExactly("1|-29|1|1");
    assertThatThrownBy(
            () -> rows("SELECT date_diff('fortnight', DATE '2024-01-01', DATE '2024-02-01')"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("'fortnight'");
  }

  @Test
  void stringAndRegexFunctions() {
    assertThat(
            rows(
                "SELECT split_part('a,b,c', ',', 2), split_part('a,b,c', ',', -1), split_part('a', ',', 3),"
                    + " regexp_replace('a1b22', '([0-9]+)', '<\\1>', 'g'), regexp_replace('AbA', 'a', '-', 'i'),"
                    + " lpad('7', 3, '0'), rpad('ab', 5, 'xy'), lpad('hello', 2), reverse('été')"))
        .containsExactly("b|c||a<1>b<22>|-bA|007|abxyx|he|été");
    assertThatThrownBy(() -> rows("SELECT regexp_matches('a', '(')"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("Invalid regular expression");
    assertThatThrownBy(() -> rows("SELECT make_date(2023, 2, 29)"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("make_date(2023, 2, 29)");
  }

  @Test
  void hashIsStableAndHashesNull() {
    assertThat(
            rows("SELECT hash('abc') = hash('abc'), hash('abc') = hash('abd'), hash(NULL) IS NULL"))
        .containsExactly("true|false|false");
  }

  @Test
  void splittableAggregatesRunAsPartialAndFinalStatesTheOthersAfterAnExchange() {
    ctx.sql("CREATE TABLE big(g INTEGER, x DOUBLE, s VARCHAR)");
    ctx.sql(
        "INSERT INTO big VALUES (1, 1.0, 'a'), (2, 2.0, 'b'), (1, 3.0, 'c'), (2, 4.0, 'd'),"
            + " (1, 5.0, 'e'), (2, 6.0, 'f'), (1, 7.0, 'g'), (2, 8.0, 'h')");
    String split =
        ctx.sql(
                "SELECT g, corr(x, g), covar_samp(x, g), arg_max(s, x), min_by(s, x),"
                    + " string_agg(s, ',') FILTER (WHERE x > 1) FROM big GROUP BY g")
            .explain();
    assertThat(split).contains("mode=PARTIAL").contains("mode=FINAL");
    String holistic =
        ctx.sql(
                "SELECT g, median(x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x),"
                    + " string_agg(s, ',' ORDER BY x) FROM big GROUP BY g")
            .explain();
    assertThat(holistic).doesNotContain("mode=PARTIAL").contains("mode=SINGLE");
    assertThat(
            rows(
                "SELECT g, median(x), string_agg(s, '' ORDER BY x DESC) FROM big GROUP BY g ORDER BY g"))
        .containsExactly("1|4.0|geca", "2|5.0|hfdb");
  }

  @Test
  void aggregatesWithOrderAndFilters() {
    ctx.sql("CREATE TABLE s(g INTEGER, v VARCHAR, k INTEGER, x DOUBLE)");
    ctx.sql(
        "INSERT INTO s VALUES (1, 'a', 3, 1.0), (1, 'b', 1, 2.0), (1, 'c', NULL, 4.0), (2, 'd', 2, 8.0),"
            + " (2, NULL, 5, 16.0), (3, 'e', 1, NULL)");
    assertThat(
            rows(
                "SELECT g, listagg(v, ';') WITHIN GROUP (ORDER BY k DESC), string_agg(v, '' ORDER BY k),"
                    + " median(x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x DESC),"
                    + " arg_max(v, k), covar_pop(x, k) FILTER (WHERE k IS NOT NULL),"
                    + " string_agg(v, '-' ORDER BY x DESC) FILTER (WHERE x > 1),"
                    + " percentile_disc(0.5) WITHIN GROUP (ORDER BY k) FILTER (WHERE x < 3),"
                    + " percentile_cont(0.5) WITHIN GROUP (ORDER BY k) FILTER (WHERE x > 1)"
                    + " FROM s GROUP BY g ORDER BY g"))
        .containsExactly(
            "1|a;b;c|bac|2.0|2.0|a|-0.5|c-b|1|1.0",
            "2|d|d|12.0|16.0|d|6.0|d|null|3.5",
            "3|e|e|null|null|e|null|null|null|null");
    assertThatThrownBy(() -> rows("SELECT approx_percentile(x, 1.5) FROM s"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("between 0 and 1");
  }
}
