package dev.quiver.binding.sql;

import com.google.common.collect.ImmutableList;
import dev.quiver.binding.errors.QueryTooComplexException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.SqlParseException;
import dev.quiver.binding.functions.ScalarFunctions;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.optimizer.BottomUp;
import dev.quiver.binding.optimizer.ColumnRestrictions;
import dev.quiver.binding.optimizer.ExistsToSemiJoin;
import dev.quiver.binding.optimizer.NarrowingTrimmer;
import dev.quiver.binding.optimizer.NotNullEqualsNull;
import dev.quiver.binding.optimizer.ScanPushDown;
import dev.quiver.binding.optimizer.SemiJoinReduction;
import dev.quiver.binding.udf.ScalarUdf;
import dev.quiver.binding.unnest.Unnesting;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.config.CalciteConnectionConfigImpl;
import org.apache.calcite.config.CalciteConnectionProperty;
import org.apache.calcite.config.NullCollation;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.hep.HepMatchOrder;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rel.rules.PruneEmptyRules;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlLibrary;
import org.apache.calcite.sql.fun.SqlLibraryOperatorTableFactory;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.babel.SqlBabelParserImpl;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorUtil;
import org.apache.calcite.sql2rel.RelDecorrelator;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.sql2rel.StandardConvertletTable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calcite configuration of one session: parse, validate, convert to relational algebra, remove
 * subqueries, decorrelate and optimize. Not thread-safe; the session serializes planning.
 */
public final class SqlPipeline implements RelOptTable.ViewExpander {
  private static final Logger PLANS = LoggerFactory.getLogger("dev.quiver.binding.sql.plans");

  static {
    // SQL text is Unicode: Calcite's default character set for literals, ISO-8859-1, cannot hold
    // 'é ✓ 日本' ("Failed to encode ... in character set 'ISO-8859-1'"). Calcite reads these once,
    // when its first class loads, which is here (SessionState builds its pipeline first).
    useUnicode("calcite.default.charset", "UTF-8");
    useUnicode("calcite.default.nationalcharset", "UTF-8");
    useUnicode("calcite.default.collation.name", "UTF-8$en_US");
  }

  private static void useUnicode(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }

  /**
   * Parser settings: Calcite's lenient (Babel) grammar, which takes everyday words such as year,
   * count or rank as names; lower-cased unquoted identifiers, double-quoted identifiers kept as
   * typed.
   */
  public static final SqlParser.Config PARSER_CONFIG =
      SqlParser.config()
          .withParserFactory(SqlBabelParserImpl.FACTORY)
          .withCaseSensitive(false)
          .withUnquotedCasing(Casing.TO_LOWER)
          .withQuotedCasing(Casing.UNCHANGED)
          .withQuoting(Quoting.DOUBLE_QUOTE)
          .withConformance(SqlConformanceEnum.LENIENT);

  private final Catalog catalog;
  private final JavaTypeFactory typeFactory;
  private final RelOptCluster cluster;
  private final CalciteCatalogReader catalogReader;
  private final java.util.function.BooleanSupplier nullOnDivisionByZero;
  private final java.util.function.BooleanSupplier sharedJoinMarks;
  private FileTables fileTables;
  private java.util.function.Supplier<dev.quiver.binding.settings.SessionConfig> config;

  /**
   * Lets queries read files where a table stands ({@code FROM 'f.parquet'}, {@code read_parquet},
   * {@code read_csv}), opened with the session's {@code config}, and {@code current_setting} read
   * it.
   */
  public void readFilesWith(
      java.util.function.Supplier<dev.quiver.binding.settings.SessionConfig> config) {
    this.fileTables = new FileTables(catalog, config);
    this.config = config;
  }

  /** Drops the tables of files the last statement read (its plan holds them). */
  public void dropFileTables() {
    if (fileTables != null) {
      fileTables.drop();
    }
  }

  /** Creates the pipeline over a session's catalog and cluster. */
  public SqlPipeline(Catalog catalog, JavaTypeFactory typeFactory, RelOptCluster cluster) {
    this(catalog, typeFactory, cluster, () -> false, () -> true);
  }

  /**
   * Creates the pipeline over a session's catalog and cluster; {@code nullOnDivisionByZero} tells,
   * per statement, whether a zero divisor gives NULL rather than an error, and {@code
   * sharedJoinMarks} whether the statement's plan will run in one process (see {@link
   * dev.quiver.binding.settings.BindingSettings#SHARED_JOIN_MARKS}).
   */
  public SqlPipeline(
      Catalog catalog,
      JavaTypeFactory typeFactory,
      RelOptCluster cluster,
      java.util.function.BooleanSupplier nullOnDivisionByZero,
      java.util.function.BooleanSupplier sharedJoinMarks) {
    this.nullOnDivisionByZero = nullOnDivisionByZero;
    this.sharedJoinMarks = sharedJoinMarks;
    this.catalog = catalog;
    this.typeFactory = typeFactory;
    this.cluster = cluster;
    Properties props = new Properties();
    props.setProperty(CalciteConnectionProperty.CASE_SENSITIVE.camelName(), "false");
    CalciteSchema root = CalciteSchema.createRootSchema(false, false, "", catalog);
    this.catalogReader =
        new CalciteCatalogReader(
            root, List.of(), typeFactory, new CalciteConnectionConfigImpl(props));
  }

  /** The session's cluster (shared by every plan of the session). */
  public RelOptCluster cluster() {
    return cluster;
  }

  /** The session's type factory. */
  public JavaTypeFactory typeFactory() {
    return typeFactory;
  }

  /** A fresh RelBuilder over the session's cluster and catalog. */
  public RelBuilder relBuilder() {
    return RelFactories.LOGICAL_BUILDER.create(cluster, catalogReader);
  }

  /** Parses one statement; errors become {@link SqlParseException} with line and column. */
  public SqlNode parse(String sql) {
    return parse(sql, 1, 1);
  }

  /**
   * Parses one statement that starts at {@code line}/{@code column} of the user's text, so that
   * errors in an embedded query (e.g. after CREATE VIEW ... AS) point into the original text.
   */
  public SqlNode parse(String sql, int line, int column) {
    SqlShape.checkText(sql, line, column);
    String text = sql;
    SqlNode statement;
    try {
      statement = parseStmt(text);
    } catch (StackOverflowError e) {
      // Calcite's parser recurses once per operator of an expression: a long chain (a 5,000-term
      // OR) overflows a thread's usual stack. The text is bounded (SqlShape.checkText), so a
      // thread with a larger stack parses it.
      statement = parseOnLargeStack(text, line, column);
    } catch (org.apache.calcite.sql.parser.SqlParseException e) {
      if (causedByOverflow(e)) {
        statement = parseOnLargeStack(text, line, column);
      } else {
        throw ParseErrors.of(e, text, line, column);
      }
    }
    SqlShape.check(statement);
    GroupByAll.expand(statement, AGGREGATE_NAMES::contains, select -> starWidth(text, select));
    CommaJoins.regroup(statement);
    SqlNode named = ColumnNames.name(statement);
    StructFieldReferences.rewrite(named);
    if (config != null) {
      CurrentSettings.fold(named, name -> config.get().shown(name));
    }
    return named;
  }

  /**
   * The number of columns of {@code select}, a SELECT of {@code text} with a star in its list
   * ({@code SELECT * ... ORDER BY ALL}): the same SELECT of a fresh parse of the text, found by its
   * position, validated on its own without its ORDER BY (validating mutates the tree, so not this
   * one).
   */
  private int starWidth(String text, SqlSelect select) {
    SqlNode copy;
    try {
      copy = parseStmt(text);
    } catch (org.apache.calcite.sql.parser.SqlParseException e) {
      throw new IllegalStateException("parsed once, so parses again", e);
    }
    SqlSelect[] same = new SqlSelect[1];
    copy.accept(
        new org.apache.calcite.sql.util.SqlBasicVisitor<Void>() {
          @Override
          public Void visit(org.apache.calcite.sql.SqlCall call) {
            if (call instanceof SqlSelect s
                && s.getParserPosition().equals(select.getParserPosition())) {
              same[0] = s;
            }
            return super.visit(call);
          }
        });
    if (same[0] == null) {
      throw new QuiverException(
          "ORDER BY ALL after SELECT * could not be expanded; name the columns");
    }
    same[0].setOrderBy(null);
    GroupByAll.expand(
        same[0],
        AGGREGATE_NAMES::contains,
        s -> {
          throw new QuiverException("ORDER BY ALL in a subquery of SELECT *: name the columns");
        });
    CommaJoins.regroup(same[0]);
    // A SELECT correlated with an outer query fails here as an unknown column.
    return validate(same[0]).rowType().getFieldCount();
  }

  private static SqlNode parseStmt(String text)
      throws org.apache.calcite.sql.parser.SqlParseException {
    return LenientParser.parse(text, PARSER_CONFIG);
  }

  /**
   * Stack of the thread that parses statements too long for the calling thread's stack: 20,000
   * operators (SqlShape's bound) parse within 16 MB.
   */
  private static final long LARGE_STACK_BYTES = 64L << 20;

  private static SqlNode parseOnLargeStack(String text, int line, int column) {
    Object[] result = new Object[1];
    Thread parser =
        new Thread(
            null,
            () -> {
              try {
                result[0] = parseStmt(text);
              } catch (Throwable t) {
                result[0] = t;
              }
            },
            "quiver-sql-parser",
            LARGE_STACK_BYTES);
    parser.setDaemon(true);
    parser.start();
    try {
      parser.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new dev.quiver.binding.errors.QueryCancelledException("Interrupted while parsing");
    }
    if (result[0] instanceof SqlNode node) {
      return node;
    }
    if (result[0] instanceof StackOverflowError overflow) {
      throw tooDeep(overflow);
    }
    if (result[0] instanceof org.apache.calcite.sql.parser.SqlParseException e) {
      if (causedByOverflow(e)) {
        throw tooDeep(e);
      }
      throw ParseErrors.of(e, text, line, column);
    }
    if (result[0] instanceof RuntimeException e) {
      throw e;
    }
    throw new QuiverException("SQL parser failed: " + result[0], (Throwable) result[0]);
  }

  private static boolean causedByOverflow(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StackOverflowError) {
        return true;
      }
    }
    return false;
  }

  private static final java.util.regex.Pattern BAD_DATE_LITERAL =
      java.util.regex.Pattern.compile(
          "^(Illegal (?:DATE|TIMESTAMP) literal '?"
              + "(\\d{4})-(\\d{1,2})-(\\d{1,2})(?:[ T][^']*)?'?): not in format .*$");

  /**
   * Calcite says a well-formed date whose day or month does not exist ({@code DATE '2024-02-30'})
   * is "not in format yyyy-MM-dd" (when validating the literal); this says which part does not
   * exist instead. Other messages, real format errors included, are returned as they are.
   */
  static String impossibleDate(String message) {
    java.util.regex.Matcher m = BAD_DATE_LITERAL.matcher(message);
    if (!m.matches()) {
      return message;
    }
    int year = Integer.parseInt(m.group(2));
    int month = Integer.parseInt(m.group(3));
    int day = Integer.parseInt(m.group(4));
    if (month < 1 || month > 12) {
      return m.group(1) + ": month " + month + " does not exist (months are 1 to 12)";
    }
    java.time.YearMonth ym = java.time.YearMonth.of(year, month);
    if (day < 1 || day > ym.lengthOfMonth()) {
      return m.group(1)
          + ": day "
          + day
          + " does not exist in "
          + java.time.Month.of(month)
              .getDisplayName(java.time.format.TextStyle.FULL, Locale.ENGLISH)
          + " "
          + year
          + " (it has "
          + ym.lengthOfMonth()
          + " days)";
    }
    return message;
  }

  private static QueryTooComplexException tooDeep(Throwable e) {
    return new QueryTooComplexException(
        "Query too deeply nested for the SQL parser (its stack overflowed); flatten the"
            + " expression or split the query",
        e);
  }

  /** A validator over the session's catalog, built-in functions and UDFs. */
  public SqlValidator newValidator() {
    SqlValidator.Config config =
        SqlValidator.Config.DEFAULT
            .withIdentifierExpansion(true)
            .withConformance(SqlConformanceEnum.LENIENT)
            .withDefaultNullCollation(NullCollation.LAST);
    return SqlValidatorUtil.newValidator(operatorTable(), catalogReader, typeFactory, config);
  }

  /**
   * Common functions beyond the SQL standard (CONCAT, LENGTH, DATE_TRUNC, LEFT, ...) with the
   * PostgreSQL/DuckDB spelling users expect.
   */
  private static final SqlOperatorTable LIBRARY_FUNCTIONS =
      withoutQuiverNames(
          SqlLibraryOperatorTableFactory.INSTANCE.getOperatorTable(
              EnumSet.of(SqlLibrary.POSTGRESQL)));

  /**
   * {@code table} without the functions Quiver declares itself ({@link ScalarFunctions}, {@link
   * QuiverFunctions}; PostgreSQL's TO_CHAR takes only timestamps, Quiver's takes dates too), so no
   * call finds two candidates.
   */
  private static SqlOperatorTable withoutQuiverNames(SqlOperatorTable table) {
    java.util.Set<String> own = new java.util.HashSet<>();
    List<SqlOperator> declared = new ArrayList<>(QuiverFunctions.operators());
    declared.addAll(ScalarFunctions.OPERATORS.getOperatorList());
    for (SqlOperator op : declared) {
      own.add(op.getName().toUpperCase(Locale.ROOT));
    }
    List<SqlOperator> kept = new ArrayList<>();
    for (SqlOperator op : table.getOperatorList()) {
      if (!own.contains(op.getName().toUpperCase(Locale.ROOT))) {
        kept.add(op);
      }
    }
    return SqlOperatorTables.of(kept);
  }

  /** Upper-case names of the built-in aggregate functions (for GROUP BY ALL). */
  private static final java.util.Set<String> AGGREGATE_NAMES = aggregateNames();

  private static java.util.Set<String> aggregateNames() {
    java.util.Set<String> names = new java.util.HashSet<>();
    for (SqlOperatorTable table :
        List.of(StandardFunctions.TABLE, LIBRARY_FUNCTIONS, QuiverFunctions.TABLE)) {
      for (SqlOperator op : table.getOperatorList()) {
        if (op.isAggregator()) {
          names.add(op.getName().toUpperCase(Locale.ROOT));
        }
      }
    }
    return java.util.Set.copyOf(names);
  }

  /** Built-in functions and UDFs. */
  public SqlOperatorTable operatorTable() {
    List<SqlOperator> udfOps = new ArrayList<>();
    for (ScalarUdf udf : catalog.udfs()) {
      udfOps.add(udfOperator(udf));
    }
    return SqlOperatorTables.chain(
        StandardFunctions.TABLE,
        ScalarFunctions.OPERATORS,
        QuiverFunctions.TABLE,
        LIBRARY_FUNCTIONS,
        SqlOperatorTables.of(SqlLibraryOperators.TRY_CAST),
        SqlOperatorTables.of(udfOps));
  }

  private SqlFunction udfOperator(ScalarUdf udf) {
    List<SqlTypeFamily> families = new ArrayList<>();
    List<RelDataType> argTypes = new ArrayList<>();
    for (ArrowType t : udf.argumentTypes()) {
      RelDataType rt = TypeMapping.toRel(t, true, typeFactory);
      argTypes.add(rt);
      SqlTypeFamily f = rt.getSqlTypeName().getFamily();
      families.add(f == null ? SqlTypeFamily.ANY : f);
    }
    RelDataType ret = TypeMapping.toRel(udf.returnType(), true, typeFactory);
    return new SqlFunction(
        udf.name().toLowerCase(Locale.ROOT),
        SqlKind.OTHER_FUNCTION,
        ReturnTypes.explicit(ret),
        InferTypes.explicit(argTypes),
        OperandTypes.family(families),
        SqlFunctionCategory.USER_DEFINED_FUNCTION);
  }

  /** Names of every function the validator knows, for suggestions. */
  public List<String> functionNames() {
    List<String> names = new ArrayList<>();
    for (SqlOperator op : operatorTable().getOperatorList()) {
      if (op instanceof SqlFunction && op.getName().matches("[A-Za-z_][A-Za-z0-9_]*")) {
        String n = op.getName().toLowerCase(Locale.ROOT);
        if (!names.contains(n)) {
          names.add(n);
        }
      }
    }
    return names;
  }

  /** Validates a query; returns the validated tree and its row type. */
  public Validated validate(SqlNode query) {
    AggregateOrderBy.rewrite(query);
    if (fileTables != null) {
      fileTables.expand(query);
    }
    InformationSchema.expand(query, catalog);
    if (nullOnDivisionByZero.getAsBoolean()) {
      DivisionByZero.nullOnZero(query);
    }
    SqlValidator validator = newValidator();
    try {
      SqlNode node = validator.validate(query);
      return new Validated(validator, node, validator.getValidatedNodeType(node));
    } catch (RuntimeException e) {
      throw ValidationErrors.translate(e, query, catalog, this);
    }
  }

  /** A validated query with the validator that checked it. */
  public record Validated(SqlValidator validator, SqlNode node, RelDataType rowType) {}

  /** Validates and converts a query to relational algebra without subqueries or correlation. */
  public RelNode toRel(SqlNode query) {
    Validated v = validate(query);
    return toRel(v);
  }

  /** Converts a validated query; see {@link #toRel(SqlNode)}. */
  public RelNode toRel(Validated v) {
    RelNode rel = converted(v);
    RelNode out = removeSubQueries(rel);
    // The decorrelator names a scalar subquery's column EXPR$n whatever its alias was.
    List<String> names = rel.getRowType().getFieldNames();
    return out.getRowType().getFieldNames().equals(names)
        ? out
        : relBuilder().push(out).rename(names).build();
  }

  private RelNode converted(Validated v) {
    return NullabilityCasts.apply(TextCasts.apply(convert(v).project()));
  }

  /**
   * A query converted with its subqueries as correlates, before they are unnested: what {@link
   * dev.quiver.binding.unnest.Unnesting} starts from (its tests read it).
   */
  public RelNode correlated(SqlNode query) {
    return toCorrelates(converted(validate(query)));
  }

  /**
   * The one configuration of Calcite's converter, for queries and for the views they expand (CTEs,
   * prepared statements and DataFrames from SQL are queries): a view converted with other options
   * answered differently from its query (issue 38: simplified while converting, {@code CAST(CAST(x
   * AS DECIMAL(20, 2)) AS VARCHAR)} lost its {@code .00}).
   */
  private static SqlToRelConverter.Config converterConfig() {
    return SqlToRelConverter.config()
        .withExpand(false)
        .withTrimUnusedFields(false)
        .withDecorrelationEnabled(true)
        .withInSubQueryThreshold(Integer.MAX_VALUE)
        // Keep a join condition's expressions in the join while converting: pushed into
        // projections below it here, a correlated subquery in the SELECT list over that join
        // read its columns at the offsets of the join before the trimming projection (the
        // wrong column, or a failed decorrelation). The optimizer pushes them down later
        // (JOIN_PUSH_EXPRESSIONS). No simplification while converting: TextCasts must see the
        // casts to text as written before Calcite's simplifier drops an inner cast. Keep every
        // GROUP BY: the builder drops one over an input of at most one row, but a subquery's
        // references to the group keys are already numbered by the aggregate's row, so they
        // then read other columns of the input (a wrong answer). Never merge a projection into
        // the one below it (bloat -1): merged into a derived table's projection, a select
        // list's correlated subquery kept a variable that described the derived table's
        // columns, so it read other columns (wrong values, or an index out of bounds).
        .addRelBuilderConfigTransform(SqlPipeline::converting);
  }

  /** The converter's builder configuration (see {@link #converterConfig()}). */
  private static RelBuilder.Config converting(RelBuilder.Config c) {
    return c.withPushJoinCondition(false)
        .withSimplify(false)
        .withAggregateUnique(true)
        .withBloat(-1);
  }

  /**
   * Converts a validated query, or a view's query while the query that reads it converts, to
   * relational algebra with its subqueries still in place; {@link #toRel(Validated)} removes them
   * from the whole tree, views included.
   */
  private RelRoot convert(Validated v) {
    SqlToRelConverter converter =
        new SqlToRelConverter(
            this,
            v.validator(),
            catalogReader,
            cluster,
            StandardConvertletTable.INSTANCE,
            converterConfig()) {
          @Override
          protected RelNode createAggregate(
              Blackboard bb,
              ImmutableBitSet groupSet,
              ImmutableList<ImmutableBitSet> groupSets,
              List<AggregateCall> aggCalls) {
            return DuplicateGroupingSets.applies(groupSets, aggCalls)
                ? DuplicateGroupingSets.expand(
                    relBuilder().transform(SqlPipeline::converting),
                    bb.root(),
                    groupSet,
                    groupSets,
                    aggCalls)
                : super.createAggregate(bb, groupSet, groupSets, aggCalls);
          }
        };
    try {
      return converter.convertQuery(v.node(), false, true);
    } catch (QuiverException e) {
      throw e;
    } catch (RuntimeException e) {
      throw ValidationErrors.translate(e, v.node(), catalog, this);
    }
  }

  /**
   * Turns IN / SOME over a constant select list into EXISTS and plain EXISTS / NOT EXISTS filters
   * into semi / anti joins, rewrites other subqueries as correlates, then decorrelates them into
   * joins and aggregates.
   */
  public RelNode removeSubQueries(RelNode rel) {
    RelNode correlated = toCorrelates(rel);
    if (quiverUnnesting()) {
      try {
        RelNode unnested = Unnesting.apply(correlated);
        trace("unnested", unnested);
        return unnested;
      } catch (Unnesting.UnsupportedShape e) {
        // A shape Quiver's unnesting refuses takes Calcite's decorrelator, whole.
        PLANS.debug("{}; decorrelating with Calcite", e.getMessage());
      }
    }
    return decorrelate(correlated);
  }

  /** Rewrites subqueries as correlates (see {@link #removeSubQueries}). */
  private RelNode toCorrelates(RelNode rel) {
    // A HAVING that is always false makes the converter replace the aggregate by an empty VALUES
    // of the aggregate's row, while the select list's correlated subqueries still describe the
    // row before grouping (GroupKeyCorrelations maps it through the aggregate, now gone): they
    // read columns past the end. Nothing over an empty input has rows, so prune it first.
    rel =
        hep(
            rel,
            HepProgram.builder()
                .addRuleCollection(
                    List.of(
                        PruneEmptyRules.PROJECT_INSTANCE,
                        PruneEmptyRules.FILTER_INSTANCE,
                        PruneEmptyRules.JOIN_LEFT_INSTANCE,
                        PruneEmptyRules.JOIN_RIGHT_INSTANCE))
                .build());
    rel =
        ConstantSubQueries.apply(
            GroupKeyCorrelations.apply(
                HavingCorrelations.apply(WindowsBeforeSubQueries.apply(rel))));
    rel = ExistsToSemiJoin.apply(rel, sharedJoinMarks.getAsBoolean());
    trace("converted", rel);
    HepProgram program =
        HepProgram.builder()
            .addRuleCollection(
                List.of(
                    FilterSubQueryToCorrelate.INSTANCE,
                    ProjectSubQueryToCorrelate.INSTANCE,
                    CoreRules.JOIN_SUB_QUERY_TO_CORRELATE))
            .build();
    HepPlanner hep = new HepPlanner(program);
    hep.setRoot(rel);
    return hep.findBestExp();
  }

  /** Calcite's decorrelator and the passes that keep it right. */
  private RelNode decorrelate(RelNode correlated) {
    RelNode out =
        SharedCorrelations.apply(
            NestedCorrelations.apply(
                ConstantGroupKeys.apply(EmptySubQueries.apply(correlated), relBuilder())));
    trace("subqueries as correlates", out);
    RelNode decorrelated =
        CorrelatedScalarRows.apply(
            UnusedCorrelations.apply(
                SharedCorrelations.strip(
                    NullableCorrelations.strip(
                        RelDecorrelator.decorrelateQuery(
                            DeepCorrelatedAggregates.apply(
                                CorrelatedFilters.apply(NullableCorrelations.mark(out))),
                            relBuilder())))));
    trace("decorrelated", decorrelated);
    return decorrelated;
  }

  /** Whether {@code quiver.optimizer.unnesting} selects Quiver's own unnesting. */
  private boolean quiverUnnesting() {
    return config != null
        && "quiver".equals(config.get().get(dev.quiver.binding.settings.BindingSettings.UNNESTING));
  }

  /** The logical optimizer: folding, push-downs, rewrites, join ordering, column pruning. */
  public RelNode optimize(RelNode rel) {
    if (rel.getRowType().getFieldCount() == 0) {
      // The result of a statement without rows (DDL, SET): nothing to optimize, and Calcite's
      // field trimmer cannot handle a row type without fields.
      return rel;
    }
    cluster.invalidateMetadataQuery();
    RelNode r =
        hep(
            pullFactors(AllSetOperations.apply(rel, relBuilder())),
            HepProgram.builder()
                .addRuleInstance(CoreRules.PROJECT_TO_LOGICAL_PROJECT_AND_WINDOW)
                .addRuleCollection(
                    List.of(
                        CoreRules.UNION_TO_DISTINCT,
                        CoreRules.INTERSECT_TO_DISTINCT,
                        CoreRules.MINUS_TO_DISTINCT,
                        CoreRules.AGGREGATE_EXPAND_DISTINCT_AGGREGATES_TO_JOIN))
                .addRuleCollection(
                    List.of(
                        CoreRules.FILTER_REDUCE_EXPRESSIONS,
                        NotNullEqualsNull.PROJECT_REDUCE_EXPRESSIONS,
                        CoreRules.JOIN_REDUCE_EXPRESSIONS,
                        CoreRules.FILTER_INTO_JOIN,
                        CoreRules.JOIN_CONDITION_PUSH,
                        CoreRules.JOIN_PUSH_EXPRESSIONS,
                        CoreRules.FILTER_PROJECT_TRANSPOSE,
                        CoreRules.FILTER_AGGREGATE_TRANSPOSE,
                        CoreRules.FILTER_SET_OP_TRANSPOSE,
                        CoreRules.FILTER_MERGE,
                        CoreRules.PROJECT_MERGE,
                        CoreRules.PROJECT_REMOVE,
                        CoreRules.AGGREGATE_PROJECT_MERGE))
                .build());
    cluster.invalidateMetadataQuery();
    r =
        hep(
            r,
            HepProgram.builder()
                .addMatchOrder(HepMatchOrder.BOTTOM_UP)
                .addRuleCollection(
                    List.of(
                        CoreRules.JOIN_TO_MULTI_JOIN,
                        CoreRules.PROJECT_MULTI_JOIN_MERGE,
                        CoreRules.FILTER_MULTI_JOIN_MERGE))
                .addRuleInstance(CoreRules.MULTI_JOIN_OPTIMIZE)
                .build());
    trace("pushed down, joins ordered", r);
    r = NarrowingTrimmer.apply(r, relBuilder());
    trace("trimmed", r);
    cluster.invalidateMetadataQuery();
    r =
        hep(
            r,
            HepProgram.builder()
                .addRuleCollection(
                    List.of(
                        CoreRules.FILTER_INTO_JOIN,
                        CoreRules.JOIN_CONDITION_PUSH,
                        CoreRules.FILTER_PROJECT_TRANSPOSE,
                        CoreRules.FILTER_MERGE,
                        CoreRules.PROJECT_MERGE,
                        CoreRules.PROJECT_REMOVE,
                        CoreRules.AGGREGATE_PROJECT_MERGE))
                .build());
    cluster.invalidateMetadataQuery();
    trace("optimized", r);
    r = SemiJoinReduction.apply(r, relBuilder());
    trace("semi-join reduced", r);
    return withRowType(ScanPushDown.apply(r), rel.getRowType());
  }

  /**
   * Gives the optimized tree the query's own output names and types. Calcite treats field names as
   * cosmetic (it drops a projection that only renames, so {@code SELECT o_orderkey AS k} became a
   * bare scan whose batches said {@code o_orderkey}) and may tighten nullability; the batches a
   * query returns must match {@link dev.quiver.binding.dataframe.DataFrame#schema()} exactly.
   */
  /**
   * Logs a plan between the pipeline's steps at TRACE on {@code dev.quiver.binding.sql.plans}, for
   * finding which step of conversion, decorrelation or optimization changed a query's meaning.
   */
  private static void trace(String step, RelNode rel) {
    if (PLANS.isTraceEnabled()) {
      PLANS.trace("{}:\n{}", step, RelOptUtil.toString(rel));
    }
  }

  private static RelNode withRowType(RelNode optimized, RelDataType expected) {
    if (optimized.getRowType().equals(expected)) {
      return optimized;
    }
    return RelOptUtil.createCastRel(optimized, expected, true);
  }

  /**
   * Pulls conjuncts common to every branch of an OR out of filter and join conditions (TPC-H Q19:
   * {@code (a = b AND x) OR (a = b AND y)} becomes {@code a = b AND (x OR y)}), so that the
   * equality can become a hash-join key instead of leaving a nested-loop join; then adds the
   * one-column restrictions every branch implies ({@link ColumnRestrictions}) so that they reach
   * the scans.
   */
  private RelNode pullFactors(RelNode rel) {
    return BottomUp.rewrite(rel, this::pullFactorsOf);
  }

  private RelNode pullFactorsOf(RelNode node) {
    if (node instanceof org.apache.calcite.rel.core.Filter f) {
      org.apache.calcite.rex.RexNode c =
          org.apache.calcite.rex.RexUtil.pullFactors(cluster.getRexBuilder(), f.getCondition());
      c = ColumnRestrictions.derive(cluster.getRexBuilder(), c);
      return c.equals(f.getCondition()) ? f : f.copy(f.getTraitSet(), f.getInput(), c);
    }
    if (node instanceof org.apache.calcite.rel.core.Join j) {
      org.apache.calcite.rex.RexNode c =
          org.apache.calcite.rex.RexUtil.pullFactors(cluster.getRexBuilder(), j.getCondition());
      if (j.getJoinType() == org.apache.calcite.rel.core.JoinRelType.INNER) {
        c = ColumnRestrictions.derive(cluster.getRexBuilder(), c);
      }
      return c.equals(j.getCondition())
          ? j
          : j.copy(
              j.getTraitSet(), c, j.getLeft(), j.getRight(), j.getJoinType(), j.isSemiJoinDone());
    }
    return node;
  }

  private static RelNode hep(RelNode rel, HepProgram program) {
    HepPlanner hep = new HepPlanner(program);
    hep.setRoot(rel);
    return hep.findBestExp();
  }

  /** Derives the Calcite type of a SQL type name such as {@code DECIMAL(15, 2)}. */
  public RelDataType deriveType(SqlDataTypeSpec spec, boolean nullable) {
    return spec.deriveType(newValidator(), nullable);
  }

  @Override
  public RelRoot expandView(
      RelDataType rowType, String queryString, List<String> schemaPath, List<String> viewPath) {
    RelRoot root = convert(validate(parse(queryString)));
    return RelRoot.of(root.project(), root.kind);
  }
}
