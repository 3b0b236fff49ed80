package dev.quiver.binding.sql;

import dev.quiver.binding.functions.Group;
import dev.quiver.binding.functions.ScalarFunction;
import dev.quiver.binding.functions.ScalarFunctions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.fun.SqlBasicAggFunction;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlOperatorTables;

/**
 * Every function Quiver's SQL runs, documented ({@link #SUPPORTED}, listed in the README and
 * checked there by a test, each entry run by a test too): the scalar functions from their
 * definitions ({@link ScalarFunctions}), and the aggregate, window and table functions, with the
 * aggregate operators that Calcite's standard and PostgreSQL tables lack: picked from Calcite's
 * other libraries where one exists with the semantics DuckDB and PostgreSQL users expect ({@link
 * SqlLibraryOperators}), declared here otherwise.
 */
public final class QuiverFunctions {
  private QuiverFunctions() {}

  /** What a function is. */
  public enum Kind {
    SCALAR,
    AGGREGATE,
    WINDOW,
    TABLE
  }

  /**
   * One documented function.
   *
   * @param names its name and aliases, lower case
   * @param kind scalar, aggregate, window or table function
   * @param group the section of a scalar function, null for the other kinds
   * @param signature how it is called
   * @param description what it returns
   * @param example a query using it (run by FunctionsTest)
   */
  public record Function(
      List<String> names,
      Kind kind,
      Group group,
      String signature,
      String description,
      String example) {}

  private static SqlAggFunction aggregate(
      String name,
      SqlReturnTypeInference type,
      org.apache.calcite.sql.type.SqlOperandTypeChecker operands) {
    return SqlBasicAggFunction.create(name, SqlKind.OTHER_FUNCTION, type, operands);
  }

  /** median(x): the 0.5 continuous percentile (DOUBLE for numbers). */
  static final SqlAggFunction MEDIAN =
      aggregate("MEDIAN", QuiverFunctions::interpolatedType, OperandTypes.NUMERIC);

  /**
   * The type of an interpolated percentile of {@code binding}'s value (the ORDER BY key, or the
   * first operand): DECIMAL stays DECIMAL of its scale, as in DuckDB; other numbers are DOUBLE.
   */
  static org.apache.calcite.rel.type.RelDataType interpolatedType(
      org.apache.calcite.sql.SqlOperatorBinding binding) {
    org.apache.calcite.rel.type.RelDataType t =
        binding.getOperandCount() > 0 && binding.getOperator().getKind() != SqlKind.PERCENTILE_CONT
            ? binding.getOperandType(0)
            : binding.getCollationType();
    org.apache.calcite.rel.type.RelDataTypeFactory f = binding.getTypeFactory();
    org.apache.calcite.rel.type.RelDataType result =
        t.getSqlTypeName() == SqlTypeName.DECIMAL ? t : f.createSqlType(SqlTypeName.DOUBLE);
    return f.createTypeWithNullability(result, true);
  }

  /**
   * {@code type}, or under FILTER the type the WITHIN GROUP call already got: Calcite's FILTER
   * types its aggregate with a binding that has no ORDER BY ({@code getCollationType} throws),
   * after validating the WITHIN GROUP call, which recorded the type.
   */
  private static SqlReturnTypeInference withinGroup(SqlReturnTypeInference type) {
    return binding -> {
      try {
        return type.inferReturnType(binding);
      } catch (UnsupportedOperationException e) {
        if (binding instanceof org.apache.calcite.sql.SqlCallBinding call) {
          org.apache.calcite.rel.type.RelDataType known =
              call.getValidator().getValidatedNodeTypeIfKnown(call.getCall());
          if (known != null) {
            return known;
          }
        }
        throw e;
      }
    };
  }

  /** PERCENTILE_CONT typed as {@link #interpolatedType} (Calcite types it as its key: 1.9 -> 1). */
  static final SqlAggFunction PERCENTILE_CONT =
      SqlBasicAggFunction.create(
              SqlKind.PERCENTILE_CONT,
              withinGroup(QuiverFunctions::interpolatedType),
              OperandTypes.UNIT_INTERVAL_NUMERIC_LITERAL)
          .withFunctionType(SqlFunctionCategory.SYSTEM)
          .withGroupOrder(org.apache.calcite.util.Optionality.MANDATORY)
          .withPercentile(true)
          .withAllowsFraming(false);

  /** PERCENTILE_DISC, typed as its key, also under FILTER (see {@link #withinGroup}). */
  static final SqlAggFunction PERCENTILE_DISC =
      SqlBasicAggFunction.create(
              SqlKind.PERCENTILE_DISC,
              withinGroup(ReturnTypes.PERCENTILE_DISC_CONT),
              OperandTypes.UNIT_INTERVAL_NUMERIC_LITERAL)
          .withFunctionType(SqlFunctionCategory.SYSTEM)
          .withGroupOrder(org.apache.calcite.util.Optionality.MANDATORY)
          .withPercentile(true)
          .withAllowsFraming(false);

  /** approx_percentile(x, fraction): a value of x at that fraction (exact, percentile_disc). */
  static final SqlAggFunction APPROX_PERCENTILE =
      aggregate(
          "APPROX_PERCENTILE",
          ReturnTypes.ARG0_FORCE_NULLABLE,
          OperandTypes.family(SqlTypeFamily.ANY, SqlTypeFamily.NUMERIC));

  /** corr(y, x): Pearson's correlation coefficient. */
  static final SqlAggFunction CORR =
      aggregate("CORR", ReturnTypes.DOUBLE_NULLABLE, OperandTypes.NUMERIC_NUMERIC);

  /** Quiver's own operators and the library ones it takes beyond the PostgreSQL library. */
  static final SqlOperatorTable TABLE =
      SqlOperatorTables.of(
          MEDIAN, APPROX_PERCENTILE, CORR, SqlLibraryOperators.MIN_BY, SqlLibraryOperators.MAX_BY);

  /** Every function Quiver's SQL runs, in the order the README lists them. */
  public static final List<Function> SUPPORTED =
      concat(
          registered(),
          List.of(
              // ---- aggregates
              f(
                  "count",
                  Kind.AGGREGATE,
                  "count(*), count(x), count(DISTINCT x)",
                  "rows, non-NULL values, distinct values",
                  "SELECT count(*), count(x), count(DISTINCT x) FROM (VALUES (1), (1), (NULL)) t(x)"),
              f(
                  "sum, avg, min, max",
                  Kind.AGGREGATE,
                  "sum(x), avg(x), min(x), max(x)",
                  "total, mean, smallest, largest",
                  "SELECT sum(x), avg(x), min(x), max(x) FROM (VALUES (1), (2)) t(x)"),
              f(
                  "any_value",
                  Kind.AGGREGATE,
                  "any_value(x)",
                  "some value of the group",
                  "SELECT any_value(x) FROM (VALUES (1)) t(x)"),
              f(
                  "bool_and, bool_or, every",
                  Kind.AGGREGATE,
                  "bool_and(b), bool_or(b)",
                  "whether all / any are true",
                  "SELECT bool_and(x > 0), bool_or(x > 1), every(x > 0) FROM (VALUES (1), (2)) t(x)"),
              f(
                  "stddev, stddev_samp, stddev_pop, variance, var_samp, var_pop",
                  Kind.AGGREGATE,
                  "stddev(x), variance(x), ...",
                  "sample / population standard deviation and variance (DOUBLE)",
                  "SELECT stddev(x), stddev_samp(x), stddev_pop(x), variance(x), var_samp(x), var_pop(x) FROM (VALUES (1), (2), (4)) t(x)"),
              f(
                  "covar_samp, covar_pop, corr",
                  Kind.AGGREGATE,
                  "covar_samp(y, x), covar_pop(y, x), corr(y, x)",
                  "sample / population covariance, correlation coefficient (DOUBLE)",
                  "SELECT covar_samp(y, x), covar_pop(y, x), corr(y, x) FROM (VALUES (1, 2), (2, 5), (3, 7)) t(x, y)"),
              f(
                  "arg_min, arg_max, min_by, max_by",
                  Kind.AGGREGATE,
                  "arg_min(value, key), arg_max(value, key)",
                  "value at the row with the smallest / largest key",
                  "SELECT arg_min(v, k), arg_max(v, k), min_by(v, k), max_by(v, k) FROM (VALUES ('a', 2), ('b', 1)) t(v, k)"),
              f(
                  "string_agg, listagg",
                  Kind.AGGREGATE,
                  "string_agg(s, separator [ORDER BY ...]), listagg(s, separator) [WITHIN GROUP (ORDER BY ...)]",
                  "the values joined by separator",
                  "SELECT string_agg(s, ',' ORDER BY s), listagg(s, ';') WITHIN GROUP (ORDER BY s DESC) FROM (VALUES ('b'), ('a')) t(s)"),
              f(
                  "median",
                  Kind.AGGREGATE,
                  "median(x)",
                  "the middle value (interpolated; DOUBLE)",
                  "SELECT median(x) FROM (VALUES (1), (2), (4), (10)) t(x)"),
              f(
                  "percentile_cont, percentile_disc",
                  Kind.AGGREGATE,
                  "percentile_cont(f) WITHIN GROUP (ORDER BY x [DESC])",
                  "the value at fraction f, interpolated (cont, DOUBLE) or an input value (disc)",
                  "SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY x), percentile_disc(0.25) WITHIN GROUP (ORDER BY x) FROM (VALUES (1), (2), (4), (10)) t(x)"),
              f(
                  "approx_percentile",
                  Kind.AGGREGATE,
                  "approx_percentile(x, f)",
                  "a value of x at fraction f (computed exactly, as percentile_disc)",
                  "SELECT approx_percentile(x, 0.5) FROM (VALUES (1), (2), (4)) t(x)"),
              f(
                  "approx_count_distinct",
                  Kind.AGGREGATE,
                  "approx_count_distinct(x)",
                  "number of distinct values (computed exactly)",
                  "SELECT approx_count_distinct(x) FROM (VALUES (1), (1), (2)) t(x)"),
              f(
                  "grouping",
                  Kind.AGGREGATE,
                  "grouping(a, ...)",
                  "bit mask of the columns not grouped in this row's grouping set",
                  "SELECT x, grouping(x) FROM (VALUES (1)) t(x) GROUP BY ROLLUP (x)"),
              // ---- windows
              f(
                  "row_number, rank, dense_rank, percent_rank, cume_dist, ntile",
                  Kind.WINDOW,
                  "rank() OVER (...)",
                  "position of the row in its window",
                  "SELECT x, row_number() OVER (ORDER BY x), rank() OVER (ORDER BY x), dense_rank() OVER (ORDER BY x), percent_rank() OVER (ORDER BY x), cume_dist() OVER (ORDER BY x), ntile(2) OVER (ORDER BY x) FROM (VALUES (1), (2)) t(x)"),
              f(
                  "lag, lead, first_value, last_value",
                  Kind.WINDOW,
                  "lag(x [, offset [, default]]) OVER (...)",
                  "value of another row of the window",
                  "SELECT x, lag(x) OVER (ORDER BY x), lead(x, 1, 0) OVER (ORDER BY x), first_value(x) OVER (ORDER BY x), last_value(x) OVER (ORDER BY x) FROM (VALUES (1), (2)) t(x)"),
              // ---- tables
              f(
                  "read_parquet",
                  Kind.TABLE,
                  "FROM read_parquet('path'), FROM 'file.parquet'",
                  "the rows of a Parquet file or folder (a local path or s3://bucket/prefix)",
                  "SELECT * FROM read_parquet('target/functions-example.parquet')"),
              f(
                  "read_csv, read_csv_auto",
                  Kind.TABLE,
                  "FROM read_csv('path', delim => ';', header => false, quote => '\"', escape => '\\', nullstr => 'NA', ignore_errors => true, sample_size => 1000, types => 'a:BIGINT,b:VARCHAR'), FROM 'file.csv'",
                  "the rows of a CSV file or folder (.gz and .zst decompressed); options also as name = value (DuckDB)",
                  "SELECT * FROM read_csv('target/functions-example.csv', header => true) UNION ALL SELECT * FROM read_csv_auto('target/functions-example.csv')"),
              f(
                  "count, sum, avg, min, max",
                  Kind.WINDOW,
                  "sum(x) OVER (PARTITION BY ... ORDER BY ... ROWS|RANGE ...)",
                  "aggregate over the window frame",
                  "SELECT x, sum(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), count(x) OVER (), avg(x) OVER (), min(x) OVER (), max(x) OVER () FROM (VALUES (1), (2)) t(x)")));

  /** The scalar functions of the registry ({@link ScalarFunctions}), as documented functions. */
  private static List<Function> registered() {
    List<Function> out = new ArrayList<>();
    for (ScalarFunction f : ScalarFunctions.ALL) {
      out.add(
          new Function(
              f.names(), Kind.SCALAR, f.group(), f.signature(), f.description(), f.example()));
    }
    return out;
  }

  private static Function f(
      String names, Kind kind, String signature, String description, String example) {
    List<String> list = new ArrayList<>();
    for (String n : names.split(",")) {
      list.add(n.strip().toLowerCase(Locale.ROOT));
    }
    return new Function(List.copyOf(list), kind, null, signature, description, example);
  }

  @SafeVarargs
  private static List<Function> concat(List<Function>... parts) {
    List<Function> out = new ArrayList<>();
    for (List<Function> s : parts) {
      out.addAll(s);
    }
    return List.copyOf(out);
  }

  /**
   * The README's function tables: one Markdown table per kind, each row a function's names, how it
   * is called and what it returns.
   */
  public static String markdown() {
    StringBuilder out = new StringBuilder();
    for (Kind kind : Kind.values()) {
      List<Function> fs = SUPPORTED.stream().filter(fn -> fn.kind() == kind).toList();
      if (fs.isEmpty()) {
        continue;
      }
      String title =
          switch (kind) {
            case SCALAR -> "Scalar functions";
            case AGGREGATE ->
                "Aggregate functions (all take DISTINCT where it means something, and FILTER (WHERE ...))";
            case WINDOW -> "Window functions";
            case TABLE -> "Table functions";
          };
      out.append("\n**").append(title).append("**\n\n");
      out.append("| Function | Call | Returns |\n|---|---|---|\n");
      for (Function fn : fs) {
        out.append("| ")
            .append(String.join(", ", fn.names().stream().map(n -> "`" + n + "`").toList()))
            .append(" | `")
            .append(fn.signature().replace("|", "\\|"))
            .append("` | ")
            .append(fn.description().replace("|", "\\|"))
            .append(" |\n");
      }
    }
    return out.toString();
  }

  /** Operators in {@link #TABLE}, for lookups by name. */
  static List<SqlOperator> operators() {
    return TABLE.getOperatorList();
  }
}
