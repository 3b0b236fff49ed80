package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.datasource.ScanRequest;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.InternalException;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.SqlParseException;
import dev.quiver.binding.errors.UnboundParametersException;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.errors.UnknownFunctionException;
import dev.quiver.binding.errors.UnknownSettingException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(60)
class SqlErrorsTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext();
    Tpch.register(ctx);
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  @Test
  void parseErrorCarriesLineAndColumn() {
    assertThatThrownBy(() -> ctx.sql("select n_name,\n  from nation"))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            e -> {
              assertThat(e.line()).isEqualTo(2);
              assertThat(e.column()).isEqualTo(3);
              assertThat(e.getMessage()).contains("line 2, column 3");
            });
  }

  @Test
  void aMisspeltFirstWordIsAnUnknownStatementWithTheClosestOne() {
    assertThatThrownBy(() -> ctx.sql("-- count\n  SELEC count(*) FROM nation"))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            e -> {
              assertThat(e.getMessage())
                  .contains("unknown statement SELEC; did you mean 'SELECT'?")
                  .doesNotContain("Non-query expression");
              assertThat(e.line()).isEqualTo(2);
              assertThat(e.column()).isEqualTo(3);
            });
  }

  @Test
  void aStatementEndingTooEarlySaysWhatMayFollowInOneLine() {
    assertThatThrownBy(() -> ctx.sql("SELECT n_name FROM nation GROUP BY;"))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            e -> {
              assertThat(e.getMessage())
                  .isEqualTo(
                      "SQL parse error: the statement ends after 'GROUP BY'; expected an"
                          + " expression there (at line 1, column 35)");
            });
    assertThatThrownBy(() -> ctx.sql("SELECT n_name FROM nation WHERE"))
        .hasMessage(
            "SQL parse error: the statement ends after 'nation WHERE' (at line 1, column 27)");
    // Calcite shows the operator and the end: the error stays at the operator.
    assertThatThrownBy(() -> ctx.sql("SELECT n_name\nFROM nation WHERE n_nationkey >"))
        .hasMessage(
            "SQL parse error: the statement ends after 'n_nationkey >'; expected an expression"
                + " there (at line 2, column 31)");
    // LenientParser places an operator used as a name at the operator; no hint is guessed there.
    assertThatThrownBy(() -> ctx.sql("SELECT n_name\nFROM nation\nWHERE AND 1"))
        .hasMessage("SQL parse error: Encountered \"AND 1\" (at line 3, column 7)");
    assertThatThrownBy(() -> ctx.sql("SELECT (n_name FROM nation"))
        .hasMessage(
            "SQL parse error: Encountered \"FROM\"; expected ')' or an operator there"
                + " (at line 1, column 16)");
  }

  @Test
  void positionsInAScriptSplitInPlaceAreTheScripts() {
    List<String> statements =
        SqlScript.splitInPlace("SELECT 1;\n\n  SELECT n_name\n  FROM nation GROUP BY;\n");
    assertThat(statements).hasSize(2);
    ctx.sql(statements.get(0));
    assertThatThrownBy(() -> ctx.sql(statements.get(1)))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            e -> {
              assertThat(e.line()).isEqualTo(4);
              assertThat(e.column()).isEqualTo(23);
            });
  }

  @Test
  void aDateWhoseDayDoesNotExistSaysSo() {
    assertThatThrownBy(() -> ctx.sql("SELECT DATE '2024-02-30'"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("day 30 does not exist in February 2024 (it has 29 days)")
        .hasMessageNotContaining("not in format");
    assertThatThrownBy(() -> ctx.sql("SELECT DATE '2023-13-01'"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("month 13 does not exist");
    assertThatThrownBy(() -> ctx.sql("SELECT TIMESTAMP '2023-04-31 10:00:00'"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("day 31 does not exist in April 2023");
    // A real format error keeps the format in its message.
    assertThatThrownBy(() -> ctx.sql("SELECT DATE '2024/02/03'"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("not in format");
  }

  @Test
  void parseErrorInsideCreateViewPointsIntoTheOriginalText() {
    assertThatThrownBy(() -> ctx.sql("create view v as\nselect n_name frm nation"))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            e -> {
              assertThat(e.line()).isEqualTo(2);
              assertThat(e.column()).isEqualTo(19);
            });
  }

  @Test
  void unknownTableSuggestsTheClosestName() {
    assertThatThrownBy(() -> ctx.sql("select * from lineitm"))
        .isInstanceOfSatisfying(
            UnknownTableException.class,
            e -> {
              assertThat(e.table()).isEqualTo("lineitm");
              assertThat(e.getMessage()).contains("did you mean 'lineitem'");
            });
  }

  @Test
  void unknownColumnSuggestsColumnsOfTheQueriedTables() {
    assertThatThrownBy(() -> ctx.sql("select l_quantiy from lineitem"))
        .isInstanceOfSatisfying(
            UnknownColumnException.class,
            e -> {
              assertThat(e.column()).isEqualTo("l_quantiy");
              assertThat(e.getMessage()).contains("'l_quantity'");
            });
  }

  @Test
  void aColumnOfATableOutOfScopeIsNamedAsSuchNotSuggestedBack() {
    // The hint used to suggest the very name that was not found ("Column 'n_name' not found;
    // did you mean 'n_name'?") when another table of the query had it.
    assertThatThrownBy(() -> ctx.sql("select r.n_name from region r, nation n"))
        .isInstanceOfSatisfying(
            UnknownColumnException.class,
            e ->
                assertThat(e.getMessage())
                    .startsWith(
                        "Column 'n_name' not found in table 'r'; 'nation' has a column 'n_name'"
                            + " but is not in scope there")
                    .doesNotContain("did you mean 'n_name'"));
    assertThatThrownBy(
            () -> ctx.sql("select n_name from region where exists (select 1 from nation)"))
        .isInstanceOfSatisfying(
            UnknownColumnException.class,
            e -> assertThat(e.getMessage()).contains("'nation' has a column 'n_name'"));
  }

  @Test
  void unknownFunctionSuggestsBuiltIns() {
    assertThatThrownBy(() -> ctx.sql("select uper(n_name) from nation"))
        .isInstanceOfSatisfying(
            UnknownFunctionException.class,
            e -> {
              assertThat(e.function()).isEqualTo("uper");
              assertThat(e.getMessage()).contains("'upper'");
            });
  }

  @Test
  void typeErrorIsAQueryTypeException() {
    assertThatThrownBy(() -> ctx.sql("select * from lineitem where l_shipdate = true"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("DATE");
  }

  @Test
  void droppingAMissingTableIsAnUnknownTable() {
    assertThatThrownBy(() -> ctx.sql("drop table natoin"))
        .isInstanceOf(UnknownTableException.class)
        .hasMessageContaining("'nation'");
    ctx.sql("drop table if exists natoin");
  }

  /** Regression: date_part with a string unit surfaced Calcite's raw AssertionError. */
  @Test
  void datePartTakesItsUnitAsAString() {
    DataFrame df =
        ctx.sql(
            "select date_part('year', d) as y, date_part('MONTH', d) as m, date_part('dow', d) as"
                + " dow, date_part('doy', d) as doy from (values (date '2024-03-15')) as v(d)");
    List<VectorSchemaRoot> batches = df.collect();
    try {
      VectorSchemaRoot b = batches.get(0);
      assertThat(b.getVector("y").getObject(0)).isEqualTo(2024L);
      assertThat(b.getVector("m").getObject(0)).isEqualTo(3L);
      assertThat(b.getVector("dow").getObject(0)).isEqualTo(5L);
      assertThat(b.getVector("doy").getObject(0)).isEqualTo(75L);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    assertThatThrownBy(() -> ctx.sql("select date_part('fortnight', current_date)").collect())
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("'fortnight' is not a valid time frame")
        .hasMessageContaining("line 1, column");
  }

  /**
   * Regression: an uncorrelated scalar subquery returning several rows gave one of them
   * (SINGLE_VALUE ran as ANY_VALUE); PostgreSQL and DuckDB fail the query. Rows with NULL values
   * count too. A correlated one fails when an outer row it is used for gets several rows (it gave
   * one of them: CorrelatedScalarRows).
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void aScalarSubqueryReturningSeveralRowsIsAnError(int partitions) {
    ctx.sql("set target_partitions = " + partitions);
    ctx.sql("create table o (k int, name varchar)");
    ctx.sql("insert into o values (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e'), (6, 'f')");
    ctx.sql("create table s (k int, v varchar)");
    ctx.sql("insert into s values (1, 'x'), (2, 'y'), (2, 'z'), (3, null), (5, null), (5, null)");
    for (String sql :
        List.of(
            "select name, (select v from s) from o",
            "select (select n from (values (cast(null as int)), (null)) v(n))",
            "select name, (select v from s where s.k >= 5) from o",
            "select name, (select v from s where s.k = o.k) from o",
            "select name from o where (select v from s where s.k = o.k) = 'y'",
            "select name, (select v from s where s.k = o.k) from o where o.k = 5")) {
      assertThatThrownBy(() -> ctx.sql(sql).collect(), sql)
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("More than one row returned by a subquery used as an expression");
    }
    // A correlated subquery is grouped by its correlation values over all inner rows, before
    // the join: several rows for k = 2 and 5 must not fail a query whose outer rows skip them.
    List<VectorSchemaRoot> skipping =
        ctx.sql(
                "select count(*) from o where k not in (2, 5)"
                    + " and (select v from s where s.k = o.k) = 'x'")
            .collect();
    try {
      assertThat(
              skipping.stream()
                  .filter(r -> r.getRowCount() > 0)
                  .findFirst()
                  .orElseThrow()
                  .getVector(0)
                  .getObject(0))
          .isEqualTo(1L);
    } finally {
      skipping.forEach(VectorSchemaRoot::close);
    }
    // At most one row per outer row is fine, including none and a NULL value.
    List<VectorSchemaRoot> batches =
        ctx.sql(
                "select count(*), count(v) from (select name, (select v from s"
                    + " where s.k = o.k and s.k in (1, 3, 4)) as v from o) t")
            .collect();
    try {
      VectorSchemaRoot b =
          batches.stream().filter(r -> r.getRowCount() > 0).findFirst().orElseThrow();
      assertThat(List.of(b.getVector(0).getObject(0), b.getVector(1).getObject(0)))
          .containsExactly(6L, 1L);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  /** Runs {@code sql} to its end, closing what it returns. */
  private void run(String sql) {
    ctx.sql(sql).collect().forEach(VectorSchemaRoot::close);
  }

  /** No path of SET echoes the value: it may be a secret (the rule: never in errors or logs). */
  @Test
  void aSecretSetWronglyNeverReachesTheError() {
    assertThatThrownBy(() -> run("SET quiver.s3.secret_access_key 'hunter2'"))
        .isInstanceOf(SqlParseException.class)
        .hasMessageContaining("expected = or TO after SET quiver.s3.secret_access_key")
        .message()
        .doesNotContain("hunter2");
    assertThatThrownBy(() -> run("set quiver.s3.secret_access_key\n  hunter2;"))
        .isInstanceOf(SqlParseException.class)
        .message()
        .doesNotContain("hunter2");
    assertThatThrownBy(() -> run("SET quiver.s3.secret_acces_key = 'hunter2'"))
        .isInstanceOf(UnknownSettingException.class)
        .hasMessageContaining("quiver.s3.secret_access_key")
        .message()
        .doesNotContain("hunter2");
    assertThatThrownBy(
            () ->
                run(
                    "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION 'x.csv'"
                        + " OPTIONS ('secret_access_key' hunter2)"))
        .isInstanceOf(SqlParseException.class)
        .message()
        .doesNotContain("hunter2");
    assertThatThrownBy(
            () ->
                run(
                    "CREATE EXTERNAL TABLE x STORED AS PARQUET LOCATION 'x.parquet'"
                        + " OPTIONS ('secret_access_key' 'hunter2')"))
        .isInstanceOf(QuiverException.class)
        .message()
        .doesNotContain("hunter2");
    // Calcite's ALTER SESSION SET: its own errors echo the token they stop at.
    assertThatThrownBy(() -> run("ALTER SESSION SET quiver.s3.secret_access_key 'hunter2'"))
        .isInstanceOf(SqlParseException.class)
        .message()
        .doesNotContain("hunter2");
    run("ALTER SESSION SET quiver.execution.batch_size = 100");
    assertThat(ctx.config().get("quiver.execution.batch_size")).isEqualTo("100");
    run("SET quiver.s3.secret_access_key = 'hunter2'");
    assertThat(ctx.config().get("quiver.s3.secret_access_key")).isEqualTo("hunter2");
  }

  /** As in PostgreSQL and DuckDB, text with no statement is a clear error, not an internal one. */
  @Test
  void textWithNoStatementIsAParseError() {
    for (String sql : List.of("", "   ", "\n\t\n", "-- a comment", "/* a */ -- b\n", ";", " ; ;")) {
      assertThatThrownBy(() -> run(sql))
          .as("'%s'", sql)
          .isInstanceOf(SqlParseException.class)
          .hasMessageContaining("no statement to run: the text is empty or holds only comments")
          .message()
          .doesNotContain("out of bounds");
    }
    // A statement with its comments still runs.
    assertThat(ctx.sql("-- the answer\nSELECT 40 + 2; -- done").collect())
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.getVector(0).getObject(0)).isEqualTo(42);
              b.close();
            });
  }

  /** A ? left without a value is named as such, not as a planner failure. */
  @Test
  void aParameterWithoutAValueIsNamed() {
    assertThatThrownBy(() -> run("SELECT n_name FROM nation WHERE n_nationkey = ?"))
        .isInstanceOfSatisfying(
            UnboundParametersException.class, e -> assertThat(e.count()).isEqualTo(1))
        .hasMessageContaining("The statement has 1 parameter (?) but no values for them")
        .message()
        .doesNotContain("DYNAMIC_PARAM");
    for (String sql :
        List.of(
            "SELECT n_name FROM nation WHERE n_nationkey BETWEEN ? AND ?",
            "EXPLAIN SELECT n_name FROM nation WHERE n_nationkey BETWEEN ? AND ?",
            "CREATE TABLE c AS SELECT n_name FROM nation WHERE n_nationkey BETWEEN ? AND ?",
            "CREATE VIEW v AS SELECT n_name FROM nation WHERE n_nationkey BETWEEN ? AND ?",
            "CREATE TABLE t2 (a INT, b INT); INSERT INTO t2 VALUES (?, ?)")) {
      assertThatThrownBy(() -> run(sql))
          .as(sql)
          .isInstanceOf(UnboundParametersException.class)
          .hasMessageContaining("The statement has 2 parameters (?)");
    }
    assertThat(ctx.sql("SELECT count(*) FROM t2").collect())
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.getVector(0).getObject(0)).isEqualTo(0L);
              b.close();
            });
    // Bound, the same statement runs.
    run("INSERT INTO t2 VALUES (1, 10), (2, 20)");
    assertThat(ctx.sql("SELECT b FROM t2 WHERE a = ?", List.of(2)).collect())
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.getVector(0).getObject(0)).isEqualTo(20);
              b.close();
            });
  }

  /** An internal check failing inside the planner reaches the caller as a typed error. */
  @Test
  void anInternalPlannerFailureIsATypedError() {
    ctx.registerTable("broken", new BrokenTable());
    assertThatThrownBy(() -> ctx.sql("select * from broken").collect())
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("could not plan this query")
        .hasMessageContaining(
            "AssertionError: schema invariant at SqlErrorsTest$BrokenTable.schema")
        .isInstanceOf(InternalException.class)
        .hasCauseInstanceOf(AssertionError.class);
  }

  /**
   * An untyped exception thrown while a query runs (here by a table's scan, as the NULL column
   * under a sort once did in {@code Take}) reaches the caller as an {@link InternalException}
   * naming the query, the exception and where it was thrown, never as a bare class name; the log
   * has its stack trace.
   */
  @Test
  void anInternalExecutionFailureIsATypedErrorWithTheQueryId() {
    ctx.registerTable("failing", new FailingScanTable());
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream stderr = System.err;
    Throwable thrown;
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    try {
      thrown = catchThrowable(() -> ctx.sql("SELECT * FROM failing").collect());
    } finally {
      System.setErr(stderr);
    }
    assertThat(thrown).isInstanceOf(InternalException.class);
    InternalException internal = (InternalException) thrown;
    assertThat(internal.queryId()).startsWith("query-");
    assertThat(internal.getMessage())
        .startsWith("Internal error in query " + internal.queryId() + ": ")
        .contains("UnsupportedOperationException at SqlErrorsTest$FailingScan.doExecute")
        .contains("this is a bug in Quiver")
        .doesNotContain("java.lang.");
    assertThat(internal).hasCauseInstanceOf(UnsupportedOperationException.class);
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains(internal.getMessage())
        .contains("\tat dev.quiver.binding.sql.SqlErrorsTest$FailingScan.doExecute");
    // The session still answers.
    assertThat(ctx.sql("SELECT 1 AS one").count()).isEqualTo(1);
  }

  /** A table whose scan throws an untyped exception with no message when it runs. */
  private static final class FailingScanTable implements TableProvider {
    private static final Schema SCHEMA =
        new Schema(List.of(Field.nullable("x", new ArrowType.Int(32, true))));

    @Override
    public Schema schema() {
      return SCHEMA;
    }

    @Override
    public ExecutionPlan scan(ScanRequest request) {
      return new FailingScan(SCHEMA);
    }
  }

  private static final class FailingScan extends BaseExecutionPlan {
    FailingScan(Schema schema) {
      super(schema, List.of());
    }

    @Override
    public Partitioning outputPartitioning() {
      return Partitioning.single();
    }

    @Override
    public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
      return this;
    }

    @Override
    protected BatchStream doExecute(int partition, TaskContext context) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String displayDetails() {
      return "";
    }
  }

  /** A table whose schema lookup fails an internal check, as Calcite's assertions do. */
  private static final class BrokenTable implements TableProvider {
    @Override
    public Schema schema() {
      throw new AssertionError("schema invariant");
    }

    @Override
    public ExecutionPlan scan(ScanRequest request) {
      throw new AssertionError("not reached");
    }
  }
}
