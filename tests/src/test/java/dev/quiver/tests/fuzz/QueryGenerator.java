package dev.quiver.tests.fuzz;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

/**
 * Random SQL queries over {@link FuzzTables}, each with metamorphic equivalents: queries that must
 * return the same multiset of rows (ternary logic partitioning, TLP: {@code Q} equals the UNION ALL
 * of {@code Q WHERE p}, {@code Q WHERE NOT p} and {@code Q WHERE p IS NULL}; and for aggregates the
 * same split of the input, recombined, or of HAVING).
 *
 * <p>Queries cover joins of every type (inner, left, right, full, cross, comma; semi and anti joins
 * through EXISTS, NOT EXISTS, IN, NOT IN, ANY and ALL) on equality, range, {@code <>} and IS [NOT]
 * DISTINCT FROM conditions; scalar, correlated and uncorrelated subqueries (correlated also by
 * non-equalities) in SELECT, WHERE and HAVING, nested in subqueries and referring to any enclosing
 * query, with derived tables correlated to an enclosing query; aggregates with and without GROUP
 * BY, also by ROLLUP, CUBE and GROUPING SETS; window functions and frames; NULL handling and casts;
 * ORDER BY with LIMIT and OFFSET; DISTINCT; UNION [ALL], INTERSECT and EXCEPT; derived tables and
 * WITH, also a WITH query read twice.
 *
 * <p>Only SQL that DuckDB and Quiver read with the same meaning is generated. Where the two
 * legitimately differ, the construct is avoided or normalised:
 *
 * <ol>
 *   <li>Integer division: DuckDB's {@code /} on integers gives a DOUBLE, Quiver's (Calcite's) an
 *       integer. {@code /} only divides DOUBLEs.
 *   <li>Division and MOD by zero: DuckDB gives NULL or an infinity, Quiver raises an error.
 *       Divisors are wrapped in {@code NULLIF(x, 0)}.
 *   <li>Default NULL ordering differs (DuckDB: NULLS LAST both ways; Calcite: NULLs sort high).
 *       Every ORDER BY item, in queries and in windows, says NULLS FIRST or NULLS LAST.
 *   <li>Rounding casts: DECIMAL to INTEGER and to fewer decimal digits round half away from zero in
 *       DuckDB, half-even in Quiver; DOUBLE to INTEGER is half-even in DuckDB and truncates in
 *       Quiver. Neither is generated; DOUBLE to DECIMAL only casts columns (exact quarters).
 *   <li>BOOLEAN to INTEGER casts are rejected by Calcite; BOOLEAN and DOUBLE to VARCHAR are spelled
 *       differently ('true'/'TRUE', '0.5'/'0.5E0'). None is generated.
 *   <li>DATE + INTERVAL is a TIMESTAMP in DuckDB and a DATE in Quiver: it is cast back to DATE.
 *   <li>Literals: DOUBLE literals are written {@code 0.5E0} (a plain {@code 0.5} is DECIMAL in
 *       both); negative literals are parenthesised (no {@code --} comment by accident); typed NULLs
 *       are {@code CAST(NULL AS type)}; an untyped {@code NULL AS cN} may end a select list (of a
 *       query, a derived table, every branch of a set operation), where no expression reads it.
 *   <li>Order-dependent results are only generated under a total order: LIMIT/OFFSET orders by
 *       every output column (and such queries have no DOUBLE output, whose last bits may differ and
 *       reorder rows); ROW_NUMBER, LAG, LEAD, FIRST_VALUE, LAST_VALUE and ROWS frames end their
 *       window order with the unique id of every table in the FROM clause.
 *   <li>Scalar subqueries return at most one row: an aggregate without GROUP BY, or a lookup by the
 *       unique {@code id}. (Several rows are an error in DuckDB; see the findings.)
 *   <li>Subqueries use outer columns only in their WHERE clause (an aggregate of outer columns
 *       inside a subquery is an outer aggregate in SQL, which neither engine is tested on).
 *   <li>Overflow: values are small and {@code *} multiplies by small literals (or two DECIMAL or
 *       DOUBLE leaves), so only the deliberate BIGINT-to-INTEGER casts can overflow, and both
 *       engines must then fail.
 *   <li>DuckDB 1.4.4 answers EXISTS and NOT EXISTS wrongly when the subquery is correlated by a
 *       range comparison and a {@code <>} or IS DISTINCT FROM together (EXISTS over rows that exist
 *       is false; see the corpus entry exists_correlated_with_inequality), and when it is
 *       correlated by IS DISTINCT FROM with an outer NULL ({@code EXISTS (SELECT * FROM s WHERE s.m
 *       IS DISTINCT FROM o.m)} is false for o.m NULL although s has non-NULL m; DuckDB 2.0 answers
 *       it right). Such correlations are not generated for EXISTS. It also answers an EXISTS it
 *       runs as a mark join (in a select list, under OR) wrongly when a correlated {@code <>}
 *       compares a NULL outer value ({@code SELECT NOT EXISTS (SELECT * FROM s WHERE s.id = o.i AND
 *       o.f <> s.f) FROM o} is false where o.f is NULL; seed 20261224 query 1130): the outer side
 *       of a correlated {@code <>} in EXISTS is wrapped in COALESCE with a literal. And it drops
 *       the outer rows with a NULL correlation value when an EXISTS is correlated by IS NOT
 *       DISTINCT FROM and a range together (its delim join compares that column with {@code =};
 *       corpus entry exists_correlated_by_is_not_distinct_from_and_a_range, seed 20261208 query
 *       12722; DuckDB 2.0 answers it right): not generated for EXISTS either.
 * </ol>
 */
final class QueryGenerator {
  /** A generated query and the queries whose results must equal its result as a multiset. */
  record Generated(String sql, String shape, List<String> equivalents) {}

  /** A column (or group key) in scope: its SQL and type. */
  private record Col(String sql, FuzzType type) {}

  /**
   * The columns a FROM clause makes visible, and the unique ids whose values order its rows totally
   * (null when some FROM item has no id).
   */
  private record Scope(List<Col> cols, List<String> ids) {
    List<Col> ofType(FuzzType t) {
      return cols.stream().filter(c -> c.type() == t).toList();
    }

    List<Col> comparableWith(FuzzType t) {
      return cols.stream().filter(c -> c.type().comparableWith(t)).toList();
    }

    Scope plus(Scope other) {
      List<Col> all = new ArrayList<>(cols);
      all.addAll(other.cols);
      List<String> allIds = null;
      if (ids != null && other.ids != null) {
        allIds = new ArrayList<>(ids);
        allIds.addAll(other.ids);
      }
      return new Scope(List.copyOf(all), allIds);
    }
  }

  /** Where an expression is generated. */
  private static final class Ctx {
    /** Row columns (ROW mode) or group keys (AGG mode). */
    final Scope scope;

    /** AGG mode: the FROM clause aggregates read; null in ROW mode. */
    final Scope aggInput;

    /** Window functions allowed (a window query's select list). */
    final boolean windows;

    /** Subquery nesting depth of this expression. */
    final int nesting;

    /** Subqueries this query may still add (shared with nested contexts of the same query). */
    final int[] budget;

    /** Plain columns of the queries around this one, which its own subqueries may also use. */
    final List<Col> enclosing;

    Ctx(Scope scope, Scope aggInput, boolean windows, int nesting, int[] budget) {
      this(scope, aggInput, windows, nesting, budget, List.of());
    }

    Ctx(
        Scope scope,
        Scope aggInput,
        boolean windows,
        int nesting,
        int[] budget,
        List<Col> enclosing) {
      this.scope = scope;
      this.aggInput = aggInput;
      this.windows = windows;
      this.nesting = nesting;
      this.budget = budget;
      this.enclosing = enclosing;
    }

    boolean agg() {
      return aggInput != null;
    }

    boolean canNest() {
      return budget[0] > 0 && nesting < 2;
    }

    /**
     * Outer columns a subquery of this context may correlate to: plain columns only, of this query
     * and of the queries around it.
     */
    List<Col> correlatable() {
      List<Col> cols = new ArrayList<>(enclosing);
      scope.cols().stream().filter(c -> PLAIN_COLUMN.matcher(c.sql()).matches()).forEach(cols::add);
      return cols;
    }

    Ctx rowsOnly() {
      return new Ctx(scope, null, false, nesting, new int[] {0}, enclosing);
    }
  }

  /** A query without top-level ORDER BY: its SQL, output types and native TLP variant. */
  private record Query(String sql, List<FuzzType> types, String tlp) {}

  private static final Pattern PLAIN_COLUMN = Pattern.compile("[a-z]\\d+\\.[a-z]\\w*");
  private static final Pattern HAS_COLUMN = Pattern.compile("[a-z]\\d+\\.[a-z]");
  private static final FuzzType[] TYPES = FuzzType.values();
  private static final String[] WORDS = {"a", "b", "ab", "A", "", "zz", "a ", "10", "c"};
  private static final String[] LIKE_PATTERNS = {"a%", "%a", "_", "%b%", "a_", "", "%", "A%"};

  private final Random r;
  private final List<FuzzTables.Table> tables;
  private int aliases;
  // Subqueries the whole query may still add, and how deep derived tables nest now.
  private final int[] budget = {0};
  private int derivedDepth;
  // The query's size: expression and predicate depth, FROM items, derived tables allowed.
  private int depth;
  private int maxFrom;
  private boolean derivedAllowed;

  QueryGenerator(long seed, List<FuzzTables.Table> tables) {
    this.r = new Random(seed);
    this.tables = tables;
  }

  /** The next query with its metamorphic equivalents. */
  Generated next() {
    aliases = 0;
    derivedDepth = 0;
    // Most queries are small (cheap to plan); some nest more.
    int level = r.nextInt(100) < 55 ? 0 : r.nextInt(100) < 75 ? 1 : 2;
    depth = level == 0 ? 1 : 2;
    maxFrom = level == 0 ? 2 : 3;
    derivedAllowed = level > 0;
    budget[0] = level == 0 ? r.nextInt(2) : level;
    int k = r.nextInt(100);
    Query q;
    String shape;
    if (k < 24) {
      shape = "select";
      q = simple(null, maxFrom, false);
    } else if (k < 28) {
      shape = "cte twice";
      q = cteTwice();
    } else if (k < 54) {
      shape = "aggregate";
      q = aggregate(null, maxFrom, false);
    } else if (k < 70) {
      shape = "window";
      q = windowQuery();
    } else if (k < 84) {
      shape = "setop";
      q = setOperation();
    } else if (derivedAllowed) {
      shape = "derived";
      q = r.nextBoolean() ? simple(null, 2, true) : aggregate(null, 2, true);
    } else {
      shape = "select";
      q = simple(null, maxFrom, false);
    }
    String sql = q.sql();
    boolean limited = false;
    if (r.nextInt(4) == 0) {
      sql += orderByAll(q.types().size());
      if (!q.types().contains(FuzzType.DOUBLE) && r.nextBoolean()) {
        sql += " LIMIT " + r.nextInt(8);
        if (r.nextInt(3) == 0) {
          sql += " OFFSET " + r.nextInt(5);
        }
        limited = true;
      }
    }
    List<String> equivalents = new ArrayList<>();
    if (q.tlp() != null && !limited && r.nextBoolean()) {
      equivalents.add(q.tlp());
    } else {
      equivalents.add(wrapperTlp(sql, q.types()));
    }
    return new Generated(sql, shape, equivalents);
  }

  // ---------------------------------------------------------------- query shapes

  /** SELECT [DISTINCT] items FROM ... [WHERE]; with its WHERE-split TLP variant. */
  private Query simple(List<FuzzType> want, int maxItems, boolean derived) {
    From from = from(maxItems, derived ? 100 : 8);
    Ctx c = new Ctx(from.scope, null, false, 0, budget);
    List<FuzzType> types = want != null ? want : randomTypes(1 + r.nextInt(4));
    StringBuilder items = new StringBuilder();
    for (int i = 0; i < types.size(); i++) {
      items
          .append(i == 0 ? "" : ", ")
          .append(expr(types.get(i), c, 1 + r.nextInt(depth)))
          .append(" AS c")
          .append(i);
    }
    if (want == null) {
      items.append(untypedNull(types.size()));
    }
    boolean distinct = r.nextInt(6) == 0;
    String where = r.nextInt(10) < 7 ? pred(c, depth) : null;
    String select = "SELECT " + (distinct ? "DISTINCT " : "") + items;
    String sql = select + " FROM " + from.sql + (where == null ? "" : " WHERE " + where);
    budget[0] = Math.max(budget[0], 1);
    String p = pred(c, depth);
    String base = where == null ? "" : "(" + where + ") AND ";
    String glue = distinct ? " UNION " : " UNION ALL ";
    String tlp =
        String.join(
            glue,
            select + " FROM " + from.sql + " WHERE " + base + "(" + p + ")",
            select + " FROM " + from.sql + " WHERE " + base + "NOT (" + p + ")",
            select + " FROM " + from.sql + " WHERE " + base + "(" + p + ") IS NULL");
    return new Query(sql, types, tlp);
  }

  /**
   * An aggregate with or without GROUP BY and HAVING; with a TLP variant of its input or HAVING.
   */
  private Query aggregate(List<FuzzType> want, int maxItems, boolean derived) {
    From from = from(maxItems, derived ? 100 : 8);
    Ctx rows = new Ctx(from.scope, null, false, 0, budget);
    String where = r.nextBoolean() ? pred(rows, depth) : null;
    int keyCount = want != null ? r.nextInt(3) : new int[] {0, 1, 1, 1, 2, 2, 3}[r.nextInt(7)];
    List<Col> keys = new ArrayList<>();
    for (int i = 0; i < keyCount; i++) {
      FuzzType t = randomType();
      String key;
      if (r.nextInt(5) == 0) {
        key = expr(t, rows.rowsOnly(), 1);
        if (!HAS_COLUMN.matcher(key).find()) {
          key = column(from.scope, t);
        }
      } else {
        key = column(from.scope, t);
      }
      String k2 = key;
      if (key != null && keys.stream().noneMatch(kc -> kc.sql().equals(k2))) {
        keys.add(new Col(key, t));
      }
    }
    Ctx agg = new Ctx(new Scope(List.copyOf(keys), null), from.scope, false, 0, budget);
    // Bare COUNT/SUM/MIN/MAX items can be recombined over a split input.
    boolean bare = want == null && r.nextBoolean();
    List<FuzzType> types = new ArrayList<>();
    List<String> items = new ArrayList<>();
    List<String> combiners = new ArrayList<>();
    if (want == null) {
      for (Col key : keys) {
        types.add(key.type());
        items.add(key.sql());
        combiners.add(null);
      }
      int n = 1 + r.nextInt(3);
      for (int i = 0; i < n; i++) {
        FuzzType t = randomType();
        if (bare) {
          String[] call = bareAggregate(t, from.scope);
          types.add(t);
          items.add(call[0]);
          combiners.add(call[1]);
        } else {
          types.add(t);
          items.add(expr(t, agg, depth));
          combiners.add(null);
        }
      }
    } else {
      for (FuzzType t : want) {
        types.add(t);
        items.add(expr(t, agg, depth));
      }
    }
    if (want == null) {
      // An untyped NULL item is a constant of each group (a key of the recombining TLP query).
      String n = untypedNull(items.size());
      if (!n.isEmpty()) {
        items.add("NULL");
        combiners.add(null);
      }
    }
    String having = r.nextInt(3) == 0 ? pred(agg, depth) : null;
    StringBuilder select = new StringBuilder("SELECT ");
    for (int i = 0; i < items.size(); i++) {
      select.append(i == 0 ? "" : ", ").append(items.get(i)).append(" AS c").append(i);
    }
    // Grouping sets: key columns are NULL in the rows of the sets without them.
    boolean groupingSets = want == null && !keys.isEmpty() && r.nextInt(4) == 0;
    String groupBy =
        keys.isEmpty()
            ? ""
            : " GROUP BY "
                + (groupingSets
                    ? groupingSets(keys.stream().map(Col::sql).toList())
                    : String.join(", ", keys.stream().map(Col::sql).toList()));
    String body = " FROM " + from.sql + (where == null ? "" : " WHERE " + where) + groupBy;
    String sql = select + body + (having == null ? "" : " HAVING " + having);
    if (want != null) {
      return new Query(sql, types, null);
    }
    budget[0] = Math.max(budget[0], 1);
    String tlp;
    // Recombining a split input by the keys cannot tell a grouping set's NULL from a NULL key.
    boolean splitInput = bare && having == null && !groupingSets && r.nextBoolean();
    if (!splitInput && keys.isEmpty() && having == null) {
      // Items without an aggregate call (a constant, an uncorrelated subquery) make a query of one
      // row per input row, which a HAVING would turn into one row: GROUP BY () makes the original
      // aggregate too, so the TLP parts below ask the same question (seed 20261204 query 6473).
      body += " GROUP BY ()";
      sql = select + body;
    }
    if (splitInput) {
      String p = pred(rows, depth);
      String base = where == null ? "" : "(" + where + ") AND ";
      List<String> parts = new ArrayList<>();
      for (String part : List.of("(" + p + ")", "NOT (" + p + ")", "(" + p + ") IS NULL")) {
        parts.add(select + " FROM " + from.sql + " WHERE " + base + part + groupBy);
      }
      StringBuilder outer = new StringBuilder("SELECT ");
      List<String> keyCols = new ArrayList<>();
      for (int i = 0; i < items.size(); i++) {
        String col = "u.c" + i;
        outer.append(i == 0 ? "" : ", ");
        if (combiners.get(i) == null) {
          outer.append(col);
          keyCols.add(col);
        } else {
          outer.append(combiners.get(i)).append('(').append(col).append(')');
        }
      }
      outer.append(" FROM (").append(String.join(" UNION ALL ", parts)).append(") AS u");
      if (!keyCols.isEmpty()) {
        outer.append(" GROUP BY ").append(String.join(", ", keyCols));
      }
      tlp = outer.toString();
    } else {
      String p = pred(agg, depth);
      String h = having == null ? "" : "(" + having + ") AND ";
      List<String> parts = new ArrayList<>();
      for (String part : List.of("(" + p + ")", "NOT (" + p + ")", "(" + p + ") IS NULL")) {
        parts.add(select + body + " HAVING " + h + part);
      }
      tlp = String.join(" UNION ALL ", parts);
    }
    return new Query(sql, types, tlp);
  }

  /** {@code ROLLUP (keys)}, {@code CUBE (keys)} or {@code GROUPING SETS} of random subsets. */
  private String groupingSets(List<String> keys) {
    String list = String.join(", ", keys);
    int kind = r.nextInt(3);
    if (kind == 0) {
      return "ROLLUP (" + list + ")";
    }
    if (kind == 1) {
      return "CUBE (" + list + ")";
    }
    List<String> sets = new ArrayList<>();
    int n = 1 + r.nextInt(3);
    for (int i = 0; i < n; i++) {
      List<String> set = new ArrayList<>();
      for (String key : keys) {
        if (r.nextBoolean()) {
          set.add(key);
        }
      }
      sets.add("(" + String.join(", ", set) + ")");
    }
    return "GROUPING SETS (" + String.join(", ", sets) + ")";
  }

  /**
   * A WITH query read twice: the UNION ALL of its rows under two predicates, or its rows whose
   * first column has a partner row in it (a correlated EXISTS over the same CTE).
   */
  private Query cteTwice() {
    Query inner = r.nextBoolean() ? simple(null, 2, false) : aggregate(null, 2, false);
    String name = "q" + (++aliases);
    List<FuzzType> types = inner.types();
    String x = "x" + (++aliases);
    String y = "y" + (++aliases);
    List<Col> xCols = new ArrayList<>();
    List<Col> yCols = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      xCols.add(new Col(x + ".c" + i, types.get(i)));
      yCols.add(new Col(y + ".c" + i, types.get(i)));
    }
    budget[0] = Math.max(budget[0], 1);
    Ctx cx = new Ctx(new Scope(List.copyOf(xCols), null), null, false, 0, budget);
    Ctx cy = new Ctx(new Scope(List.copyOf(yCols), null), null, false, 0, budget);
    StringBuilder items = new StringBuilder();
    for (int i = 0; i < types.size(); i++) {
      items.append(i == 0 ? "" : ", ").append(x).append(".c").append(i).append(" AS c").append(i);
    }
    String select = "SELECT " + items + " FROM " + name + " AS " + x + " WHERE ";
    String sql = "WITH " + name + " AS (" + inner.sql() + ") " + select;
    if (r.nextBoolean()) {
      sql += pred(cx, 1) + " UNION ALL " + select + pred(cx, 1);
    } else {
      sql +=
          (r.nextBoolean() ? "" : "NOT ")
              + "EXISTS (SELECT 1 FROM "
              + name
              + " AS "
              + y
              + " WHERE "
              + y
              + ".c0 IS NOT DISTINCT FROM "
              + x
              + ".c0 AND "
              + pred(cy, 1)
              + ")";
    }
    return new Query(sql, types, null);
  }

  /** A select list with window functions. */
  private Query windowQuery() {
    From from = from(2, 12);
    Ctx c = new Ctx(from.scope, null, true, 0, budget);
    Ctx plain = new Ctx(from.scope, null, false, 0, budget);
    List<FuzzType> types = new ArrayList<>();
    List<String> items = new ArrayList<>();
    int plainItems = r.nextInt(3);
    for (int i = 0; i < plainItems; i++) {
      FuzzType t = randomType();
      types.add(t);
      items.add(expr(t, plain, 1));
    }
    int windows = 1 + r.nextInt(3);
    for (int i = 0; i < windows; i++) {
      FuzzType t = randomType();
      types.add(t);
      items.add(r.nextInt(10) < 7 ? window(t, c) : expr(t, c, depth));
    }
    StringBuilder sql = new StringBuilder("SELECT ");
    for (int i = 0; i < items.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append(items.get(i)).append(" AS c").append(i);
    }
    sql.append(" FROM ").append(from.sql);
    if (r.nextBoolean()) {
      sql.append(" WHERE ").append(pred(plain, depth));
    }
    return new Query(sql.toString(), types, null);
  }

  /** Two queries of the same column types combined by UNION [ALL], INTERSECT or EXCEPT. */
  private Query setOperation() {
    List<FuzzType> types = randomTypes(1 + r.nextInt(3));
    String left = branch(types);
    String right = branch(types);
    boolean nulls = !untypedNull(types.size()).isEmpty();
    if (nulls) {
      // Every branch ends with an untyped NULL column.
      left = withUntypedNull(left, types.size());
      right = withUntypedNull(right, types.size());
    }
    String op =
        pick(
            new String[] {
              "UNION ALL",
              "UNION ALL",
              "UNION ALL",
              "UNION",
              "UNION",
              "INTERSECT",
              "INTERSECT",
              "EXCEPT",
              "EXCEPT",
              "INTERSECT ALL",
              "EXCEPT ALL"
            });
    if (op.endsWith("ALL") && !op.startsWith("UNION") && r.nextInt(3) != 0) {
      op = op.substring(0, op.length() - 4);
    }
    String sql = left + " " + op + " " + right;
    if (r.nextInt(5) == 0) {
      sql +=
          " "
              + pick(new String[] {"UNION ALL", "UNION", "EXCEPT", "INTERSECT"})
              + " "
              + (nulls ? withUntypedNull(branch(types), types.size()) : branch(types));
    }
    return new Query(sql, types, null);
  }

  private String withUntypedNull(String sql, int typed) {
    String alias = "n" + (++aliases);
    return "SELECT " + alias + ".*, NULL AS c" + typed + " FROM (" + sql + ") AS " + alias;
  }

  private String branch(List<FuzzType> types) {
    return r.nextInt(3) == 0 ? aggregate(types, 2, false).sql() : simple(types, 2, false).sql();
  }

  /** TLP over any query: its rows split by a predicate over its output columns. */
  private String wrapperTlp(String sql, List<FuzzType> types) {
    String alias = "w" + (++aliases);
    List<Col> cols = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      cols.add(new Col(alias + ".c" + i, types.get(i)));
    }
    budget[0] = Math.max(budget[0], 1);
    Ctx c = new Ctx(new Scope(List.copyOf(cols), null), null, false, 0, budget);
    String p = pred(c, depth);
    boolean cte = r.nextInt(3) == 0;
    String source = cte ? alias : "(" + sql + ") AS " + alias;
    List<String> parts = new ArrayList<>();
    for (String part : List.of("(" + p + ")", "NOT (" + p + ")", "(" + p + ") IS NULL")) {
      parts.add("SELECT * FROM " + source + " WHERE " + part);
    }
    String union = String.join(" UNION ALL ", parts);
    return cte ? "WITH " + alias + " AS (" + sql + ") " + union : union;
  }

  /**
   * Sometimes an untyped NULL item to end a select list of {@code typed} typed items ({@code , NULL
   * AS cN}; issue 38: sorting one crashed): it is no typed column, so nothing reads it, but it goes
   * through the query's joins, sorts, aggregates, set operations and shuffles.
   */
  private String untypedNull(int typed) {
    return r.nextInt(8) == 0 ? ", NULL AS c" + typed : "";
  }

  private String orderByAll(int columns) {
    StringBuilder sb = new StringBuilder(" ORDER BY ");
    for (int i = 1; i <= columns; i++) {
      sb.append(i == 1 ? "" : ", ")
          .append(i)
          .append(r.nextBoolean() ? " ASC" : " DESC")
          .append(r.nextBoolean() ? " NULLS FIRST" : " NULLS LAST");
    }
    return sb.toString();
  }

  // ---------------------------------------------------------------- FROM and joins

  private record From(String sql, Scope scope) {}

  /** One to {@code maxItems} FROM items joined; a derived table with {@code derivedPct}%. */
  private From from(int maxItems, int derivedPct) {
    int items = 1;
    int k = r.nextInt(100);
    if (maxItems >= 2 && k >= 45) {
      items = 2;
    }
    if (maxItems >= 3 && k >= 88) {
      items = 3;
    }
    From acc = fromItem(derivedPct);
    boolean crossed = false;
    for (int i = 1; i < items; i++) {
      From next = fromItem(derivedPct / 2);
      int j = r.nextInt(100);
      String sql;
      if (j < 8 && !crossed) {
        crossed = true;
        sql = acc.sql + (r.nextBoolean() ? " CROSS JOIN " : ", ") + next.sql;
      } else {
        String type =
            j < 45
                ? "JOIN"
                : j < 55
                    ? "INNER JOIN"
                    : j < 75
                        ? "LEFT JOIN"
                        : j < 85 ? "RIGHT JOIN" : j < 93 ? "FULL JOIN" : "FULL OUTER JOIN";
        sql = acc.sql + " " + type + " " + next.sql + " ON " + joinCondition(acc.scope, next.scope);
      }
      acc = new From(sql, acc.scope.plus(next.scope));
    }
    return acc;
  }

  private From fromItem(int derivedPct) {
    String alias = "a" + (++aliases);
    if (derivedAllowed && derivedDepth < 1 && r.nextInt(100) < derivedPct) {
      derivedDepth++;
      Query q =
          switch (r.nextInt(4)) {
            case 0 -> aggregate(null, 2, false);
            case 1 -> setOperation();
            default -> simple(null, 2, false);
          };
      derivedDepth--;
      String sql = q.sql();
      if (r.nextInt(4) == 0 && !q.types().contains(FuzzType.DOUBLE)) {
        sql += orderByAll(q.types().size()) + " LIMIT " + r.nextInt(10);
      }
      List<Col> cols = new ArrayList<>();
      for (int i = 0; i < q.types().size(); i++) {
        cols.add(new Col(alias + ".c" + i, q.types().get(i)));
      }
      return new From("(" + sql + ") AS " + alias, new Scope(List.copyOf(cols), null));
    }
    FuzzTables.Table t = tables.get(r.nextInt(tables.size()));
    List<Col> cols = new ArrayList<>();
    for (FuzzTables.Column c : t.columns()) {
      cols.add(new Col(alias + "." + c.name(), c.type()));
    }
    return new From(
        t.from(r) + " AS " + alias, new Scope(List.copyOf(cols), List.of(alias + ".id")));
  }

  private String joinCondition(Scope left, Scope right) {
    List<String> conjuncts = new ArrayList<>();
    int n = r.nextInt(3) == 0 ? 2 : 1;
    for (int i = 0; i < n; i++) {
      String cmp = crossComparison(left, right);
      if (r.nextInt(10) == 0) {
        cmp = "(" + cmp + " OR " + crossComparison(left, right) + ")";
      }
      conjuncts.add(cmp);
    }
    if (r.nextInt(5) == 0) {
      Ctx both = new Ctx(left.plus(right), null, false, 0, new int[] {0});
      conjuncts.add(pred(both, 1));
    }
    return String.join(" AND ", conjuncts);
  }

  /** A comparison of a column of {@code left} with one of {@code right}. */
  private String crossComparison(Scope left, Scope right) {
    Col l = pick(left.cols());
    List<Col> candidates = right.comparableWith(l.type());
    if (candidates.isEmpty()) {
      return l.sql() + " IS NOT NULL";
    }
    Col rc = pick(candidates);
    String ls = l.sql();
    String rs = rc.sql();
    if (r.nextInt(8) == 0 && l.type().numeric()) {
      ls = "COALESCE(" + ls + ", " + literal(l.type()) + ")";
    } else if (r.nextInt(10) == 0 && l.type().integral()) {
      ls = "(" + ls + " + 1)";
    }
    int k = r.nextInt(100);
    String op =
        k < 58
            ? "="
            : k < 68
                ? "IS NOT DISTINCT FROM"
                : k < 73
                    ? "IS DISTINCT FROM"
                    : k < 82 ? "<>" : pick(new String[] {"<", "<=", ">", ">="});
    return r.nextBoolean() ? ls + " " + op + " " + rs : rs + " " + op + " " + ls;
  }

  // ---------------------------------------------------------------- expressions

  private String expr(FuzzType t, Ctx c, int depth) {
    if (t == FuzzType.BOOLEAN) {
      return pred(c, depth);
    }
    if (depth <= 0 || r.nextInt(100) < 35) {
      return leaf(t, c);
    }
    int k = r.nextInt(100);
    if (k < 7) {
      return caseExpr(t, c, depth);
    }
    if (k < 12) {
      return "COALESCE(" + expr(t, c, depth - 1) + ", " + expr(t, c, depth - 1) + ")";
    }
    if (k < 15) {
      return "NULLIF(" + expr(t, c, depth - 1) + ", " + expr(t, c, depth - 1) + ")";
    }
    if (k < 21 && c.canNest()) {
      return scalarSubquery(t, c);
    }
    if (k < 30 && c.windows) {
      return window(t, c);
    }
    return switch (t) {
      case INT -> intExpr(c, depth);
      case BIGINT -> bigintExpr(c, depth);
      case DECIMAL -> decimalExpr(c, depth);
      case DOUBLE -> doubleExpr(c, depth);
      case VARCHAR -> varcharExpr(c, depth);
      case DATE -> dateExpr(c, depth);
      case BOOLEAN -> pred(c, depth);
      case TIMESTAMP -> timestampExpr(c, depth);
    };
  }

  private String intExpr(Ctx c, int d) {
    return switch (r.nextInt(12)) {
      case 0, 1 -> "(" + expr(FuzzType.INT, c, d - 1) + " + " + expr(FuzzType.INT, c, d - 1) + ")";
      case 2 -> "(" + expr(FuzzType.INT, c, d - 1) + " - " + expr(FuzzType.INT, c, d - 1) + ")";
      case 3 -> "(" + expr(FuzzType.INT, c, d - 1) + " * " + smallInt() + ")";
      case 4 -> "ABS(" + expr(FuzzType.INT, c, d - 1) + ")";
      case 5 ->
          "MOD("
              + expr(FuzzType.INT, c, d - 1)
              + ", NULLIF("
              + expr(FuzzType.INT, c, d - 1)
              + ", 0))";
      case 6 -> "LENGTH(" + expr(FuzzType.VARCHAR, c, d - 1) + ")";
      case 7 ->
          "EXTRACT("
              + pick(new String[] {"YEAR", "MONTH", "DAY"})
              + " FROM "
              + expr(FuzzType.DATE, c, d - 1)
              + ")";
      case 8 -> "CAST(" + expr(FuzzType.BIGINT, c, d - 1) + " AS INTEGER)";
      case 9 -> "CAST(CAST(" + expr(FuzzType.INT, c, d - 1) + " AS VARCHAR) AS INTEGER)";
      case 10 ->
          "CAST(EXTRACT("
              + pick(new String[] {"HOUR", "MINUTE", "DAY"})
              + " FROM "
              + expr(FuzzType.TIMESTAMP, c, d - 1)
              + ") AS INTEGER)";
      default -> "(0 - " + expr(FuzzType.INT, c, d - 1) + ")";
    };
  }

  private String bigintExpr(Ctx c, int d) {
    FuzzType other = r.nextBoolean() ? FuzzType.INT : FuzzType.BIGINT;
    return switch (r.nextInt(7)) {
      case 0, 1 -> "(" + expr(FuzzType.BIGINT, c, d - 1) + " + " + expr(other, c, d - 1) + ")";
      case 2 -> "(" + expr(other, c, d - 1) + " - " + expr(FuzzType.BIGINT, c, d - 1) + ")";
      case 3 -> "CAST(" + expr(FuzzType.INT, c, d - 1) + " AS BIGINT)";
      case 4 -> "(" + expr(FuzzType.BIGINT, c, d - 1) + " * " + smallInt() + ")";
      case 5 ->
          "MOD(" + expr(FuzzType.BIGINT, c, d - 1) + ", NULLIF(" + expr(other, c, d - 1) + ", 0))";
      default -> "ABS(" + expr(FuzzType.BIGINT, c, d - 1) + ")";
    };
  }

  private String decimalExpr(Ctx c, int d) {
    return switch (r.nextInt(9)) {
      case 0, 1 ->
          "(" + expr(FuzzType.DECIMAL, c, d - 1) + " + " + expr(numericType(), c, d - 1) + ")";
      case 2 -> "(" + expr(FuzzType.DECIMAL, c, d - 1) + " - " + expr(FuzzType.INT, c, d - 1) + ")";
      case 3 -> "(" + leaf(FuzzType.DECIMAL, c) + " * " + leaf(FuzzType.DECIMAL, c) + ")";
      case 4 ->
          "("
              + expr(FuzzType.DECIMAL, c, d - 1)
              + " * "
              + pick(new String[] {"2", "0.5", "(-1)"})
              + ")";
      case 5 -> "ABS(" + expr(FuzzType.DECIMAL, c, d - 1) + ")";
      case 6 ->
          "CAST("
              + expr(r.nextBoolean() ? FuzzType.INT : FuzzType.BIGINT, c, d - 1)
              + " AS DECIMAL(20, 2))";
      case 7 -> {
        List<Col> doubles = c.agg() ? List.of() : c.scope.ofType(FuzzType.DOUBLE);
        yield doubles.isEmpty()
            ? "ROUND(" + expr(FuzzType.DECIMAL, c, d - 1) + ", 1)"
            : "CAST(" + pick(doubles).sql() + " AS DECIMAL(10, 2))";
      }
      default -> "CAST(" + expr(FuzzType.DECIMAL, c, d - 1) + " AS DECIMAL(18, 4))";
    };
  }

  private String doubleExpr(Ctx c, int d) {
    return switch (r.nextInt(8)) {
      case 0, 1 ->
          "(" + expr(FuzzType.DOUBLE, c, d - 1) + " + " + expr(numericType(), c, d - 1) + ")";
      case 2 ->
          "(" + expr(FuzzType.DOUBLE, c, d - 1) + " - " + expr(FuzzType.DOUBLE, c, d - 1) + ")";
      case 3 -> "(" + leaf(FuzzType.DOUBLE, c) + " * " + leaf(FuzzType.DOUBLE, c) + ")";
      case 4 ->
          "("
              + expr(FuzzType.DOUBLE, c, d - 1)
              + " / NULLIF("
              + expr(FuzzType.DOUBLE, c, d - 1)
              + ", 0E0))";
      case 5 ->
          "CAST("
              + expr(
                  pick(new FuzzType[] {FuzzType.INT, FuzzType.BIGINT, FuzzType.DECIMAL}), c, d - 1)
              + " AS DOUBLE)";
      case 6 -> "SQRT(ABS(" + expr(FuzzType.DOUBLE, c, d - 1) + "))";
      default -> "ABS(" + expr(FuzzType.DOUBLE, c, d - 1) + ")";
    };
  }

  private String varcharExpr(Ctx c, int d) {
    return switch (r.nextInt(11)) {
      case 0, 1 ->
          "(" + expr(FuzzType.VARCHAR, c, d - 1) + " || " + expr(FuzzType.VARCHAR, c, d - 1) + ")";
      case 2 -> "UPPER(" + expr(FuzzType.VARCHAR, c, d - 1) + ")";
      case 3 -> "LOWER(" + expr(FuzzType.VARCHAR, c, d - 1) + ")";
      case 4 ->
          "SUBSTRING("
              + expr(FuzzType.VARCHAR, c, d - 1)
              + " FROM "
              + (1 + r.nextInt(3))
              + (r.nextBoolean() ? " FOR " + r.nextInt(4) : "")
              + ")";
      case 5 -> "TRIM(" + expr(FuzzType.VARCHAR, c, d - 1) + ")";
      case 6 -> "REPLACE(" + expr(FuzzType.VARCHAR, c, d - 1) + ", 'a', 'xy')";
      case 7 ->
          "CAST("
              + expr(r.nextBoolean() ? FuzzType.INT : FuzzType.BIGINT, c, d - 1)
              + " AS VARCHAR)";
      case 8 -> "CAST(" + expr(FuzzType.DATE, c, d - 1) + " AS VARCHAR)";
      case 9 -> "CAST(" + expr(FuzzType.TIMESTAMP, c, d - 1) + " AS VARCHAR)";
      default -> "CAST(" + expr(FuzzType.DECIMAL, c, d - 1) + " AS VARCHAR)";
    };
  }

  private String dateExpr(Ctx c, int d) {
    return switch (r.nextInt(4)) {
      case 0 -> "CAST('2020-01-0" + (1 + r.nextInt(9)) + "' AS DATE)";
      case 3 -> "CAST(" + expr(FuzzType.TIMESTAMP, c, d - 1) + " AS DATE)";
      case 1 -> "CAST(CAST(" + expr(FuzzType.DATE, c, d - 1) + " AS VARCHAR) AS DATE)";
      default ->
          "CAST("
              + expr(FuzzType.DATE, c, d - 1)
              + " + INTERVAL '"
              + (1 + r.nextInt(30))
              + "' DAY AS DATE)";
    };
  }

  private String timestampExpr(Ctx c, int d) {
    return switch (r.nextInt(3)) {
      case 0 -> "CAST(" + expr(FuzzType.DATE, c, d - 1) + " AS TIMESTAMP)";
      case 1 -> "CAST(CAST(" + expr(FuzzType.TIMESTAMP, c, d - 1) + " AS VARCHAR) AS TIMESTAMP)";
      default ->
          "("
              + expr(FuzzType.TIMESTAMP, c, d - 1)
              + (r.nextBoolean() ? " + " : " - ")
              + "INTERVAL '"
              + (1 + r.nextInt(30))
              + "' "
              + pick(new String[] {"HOUR", "MINUTE", "DAY"})
              + ")";
    };
  }

  private String caseExpr(FuzzType t, Ctx c, int d) {
    if (r.nextInt(4) == 0) {
      FuzzType operand = randomType();
      return "CASE "
          + expr(operand, c, d - 1)
          + " WHEN "
          + literal(operand)
          + " THEN "
          + expr(t, c, d - 1)
          + " WHEN "
          + literal(operand)
          + " THEN "
          + expr(t, c, d - 1)
          + (r.nextBoolean() ? " ELSE " + expr(t, c, d - 1) : "")
          + " END";
    }
    return "CASE WHEN "
        + pred(c, d - 1)
        + " THEN "
        + expr(t, c, d - 1)
        + (r.nextBoolean() ? " WHEN " + pred(c, d - 1) + " THEN " + expr(t, c, d - 1) : "")
        + (r.nextInt(4) != 0 ? " ELSE " + expr(t, c, d - 1) : "")
        + " END";
  }

  private String leaf(FuzzType t, Ctx c) {
    List<Col> cols = c.scope.ofType(t);
    if (c.agg() && (cols.isEmpty() || r.nextInt(10) < 6)) {
      return aggregateCall(t, c);
    }
    if (!cols.isEmpty() && r.nextInt(10) < 8) {
      return pick(cols).sql();
    }
    return r.nextInt(12) == 0 ? "CAST(NULL AS " + t.sql() + ")" : literal(t);
  }

  private String column(Scope scope, FuzzType t) {
    List<Col> cols = scope.ofType(t);
    return cols.isEmpty() ? null : pick(cols).sql();
  }

  // ---------------------------------------------------------------- aggregates and windows

  /** An aggregate over {@code c}'s input giving type {@code t}. */
  private String aggregateCall(FuzzType t, Ctx c) {
    Ctx in = new Ctx(c.aggInput, null, false, c.nesting, new int[] {0});
    int k = r.nextInt(10);
    return switch (t) {
      case BIGINT ->
          switch (k) {
            case 0, 1 -> "COUNT(*)";
            case 2, 3 -> "COUNT(" + expr(randomType(), in, 1) + ")";
            case 4 -> "COUNT(DISTINCT " + expr(randomType(), in, 1) + ")";
            case 5, 6 ->
                "SUM(" + expr(r.nextBoolean() ? FuzzType.INT : FuzzType.BIGINT, in, 1) + ")";
            case 7 -> "SUM(DISTINCT " + expr(FuzzType.INT, in, 1) + ")";
            default -> minMax(t, in);
          };
      case DECIMAL -> k < 5 ? "SUM(" + expr(t, in, 1) + ")" : minMax(t, in);
      case DOUBLE ->
          k < 4
              ? "AVG(" + expr(numericType(), in, 1) + ")"
              : k < 5
                  ? "AVG(DISTINCT " + expr(numericType(), in, 1) + ")"
                  : k < 8 ? "SUM(" + expr(t, in, 1) + ")" : minMax(t, in);
      default -> minMax(t, in);
    };
  }

  private String minMax(FuzzType t, Ctx in) {
    return (r.nextBoolean() ? "MIN(" : "MAX(") + expr(t, in, 1) + ")";
  }

  /** A bare COUNT, SUM, MIN or MAX call giving {@code t}, and the aggregate that recombines it. */
  private String[] bareAggregate(FuzzType t, Scope input) {
    Ctx in = new Ctx(input, null, false, 0, new int[] {0});
    if (t == FuzzType.BIGINT && r.nextBoolean()) {
      return new String[] {
        r.nextBoolean() ? "COUNT(*)" : "COUNT(" + expr(randomType(), in, 1) + ")", "SUM"
      };
    }
    if (t.numeric() && t != FuzzType.INT && r.nextBoolean()) {
      FuzzType arg = t == FuzzType.BIGINT ? FuzzType.INT : t;
      return new String[] {"SUM(" + expr(arg, in, 1) + ")", "SUM"};
    }
    String f = r.nextBoolean() ? "MIN" : "MAX";
    return new String[] {f + "(" + expr(t, in, 1) + ")", f};
  }

  /** A window function call giving {@code t}. */
  private String window(FuzzType t, Ctx c) {
    Ctx arg = new Ctx(c.scope, null, false, c.nesting, new int[] {0});
    boolean total = c.scope.ids() != null;
    String call;
    boolean ordered;
    boolean needsTotal = false;
    boolean frameAllowed = false;
    int k = r.nextInt(10);
    if (t == FuzzType.BIGINT && k < 5) {
      String[] ranking =
          total
              ? new String[] {"ROW_NUMBER()", "RANK()", "DENSE_RANK()"}
              : new String[] {"RANK()", "DENSE_RANK()"};
      call = pick(ranking);
      ordered = true;
      needsTotal = call.startsWith("ROW");
    } else if (total && k < 7) {
      String e = expr(t, arg, 1);
      if (r.nextInt(3) == 0) {
        call = (r.nextBoolean() ? "FIRST_VALUE(" : "LAST_VALUE(") + e + ")";
        frameAllowed = true;
      } else {
        String offset = r.nextBoolean() ? "" : ", " + (1 + r.nextInt(3));
        String dflt = !offset.isEmpty() && r.nextBoolean() ? ", " + literal(t) : "";
        call = (r.nextBoolean() ? "LAG(" : "LEAD(") + e + offset + dflt + ")";
      }
      ordered = true;
      needsTotal = true;
    } else {
      call = windowAggregate(t, arg);
      ordered = r.nextInt(10) < 6;
      frameAllowed = true;
    }
    StringBuilder over = new StringBuilder(" OVER (");
    int parts = r.nextInt(3);
    for (int i = 0; i < parts; i++) {
      over.append(i == 0 ? "PARTITION BY " : ", ").append(expr(randomType(), arg, i == 0 ? 0 : 1));
    }
    if (ordered) {
      over.append(parts > 0 ? " " : "").append("ORDER BY ");
      String frame = "";
      boolean rows = false;
      if (frameAllowed && r.nextBoolean()) {
        if (total && r.nextBoolean()) {
          rows = true;
          frame =
              pick(
                  new String[] {
                    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
                    "ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
                    "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
                    "ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING",
                    "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
                    "ROWS 2 PRECEDING"
                  });
        } else {
          frame =
              pick(
                  new String[] {
                    "RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
                    "RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
                    "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
                    "OFFSET"
                  });
        }
      }
      List<Col> offsetKeys =
          c.scope.cols().stream()
              .filter(col -> col.type().integral() || col.type() == FuzzType.DATE)
              .toList();
      if (frame.equals("OFFSET") && (needsTotal || offsetKeys.isEmpty())) {
        // Peers in a RANGE frame make FIRST_VALUE and LAST_VALUE depend on row order.
        frame = "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
      }
      if (frame.equals("OFFSET")) {
        // RANGE with an offset orders by exactly one integer or date key.
        List<Col> keys = offsetKeys;
        Col key = pick(keys);
        over.append(key.sql()).append(direction());
        String unit = key.type() == FuzzType.DATE ? "INTERVAL '%d' DAY" : "%d";
        over.append(" RANGE BETWEEN ")
            .append(String.format(unit, r.nextInt(3)))
            .append(" PRECEDING AND ")
            .append(
                r.nextBoolean() ? "CURRENT ROW" : String.format(unit, r.nextInt(3)) + " FOLLOWING");
      } else {
        int keys = 1 + r.nextInt(2);
        for (int i = 0; i < keys; i++) {
          over.append(i == 0 ? "" : ", ").append(expr(randomType(), arg, 1)).append(direction());
        }
        if (needsTotal || rows) {
          for (String id : c.scope.ids()) {
            over.append(", ").append(id).append(direction());
          }
        }
        if (!frame.isEmpty()) {
          over.append(' ').append(frame);
        }
      }
    }
    return call + over.append(')');
  }

  private String windowAggregate(FuzzType t, Ctx arg) {
    return switch (t) {
      case BIGINT ->
          r.nextBoolean()
              ? "COUNT(*)"
              : r.nextBoolean()
                  ? "COUNT(" + expr(randomType(), arg, 1) + ")"
                  : "SUM(" + expr(FuzzType.INT, arg, 1) + ")";
      case DECIMAL ->
          (r.nextBoolean() ? "SUM(" : r.nextBoolean() ? "MIN(" : "MAX(") + expr(t, arg, 1) + ")";
      case DOUBLE ->
          r.nextBoolean()
              ? "AVG(" + expr(numericType(), arg, 1) + ")"
              : (r.nextBoolean() ? "SUM(" : "MAX(") + expr(t, arg, 1) + ")";
      default -> (r.nextBoolean() ? "MIN(" : "MAX(") + expr(t, arg, 1) + ")";
    };
  }

  private String direction() {
    return (r.nextBoolean() ? " ASC" : " DESC")
        + (r.nextBoolean() ? " NULLS FIRST" : " NULLS LAST");
  }

  // ---------------------------------------------------------------- predicates and subqueries

  /** A boolean expression, parenthesised (precedence of IS, =, BETWEEN differs across engines). */
  private String pred(Ctx c, int depth) {
    return "(" + unparenthesisedPred(c, depth) + ")";
  }

  private String unparenthesisedPred(Ctx c, int depth) {
    int k = r.nextInt(100);
    if (depth <= 0) {
      k = r.nextInt(40);
    }
    if (k < 26) {
      FuzzType t = randomType();
      if (t == FuzzType.BOOLEAN) {
        t = FuzzType.INT;
      }
      FuzzType u = t.numeric() ? numericType() : t;
      return expr(t, c, depth - 1) + " " + comparison() + " " + expr(u, c, depth - 1);
    }
    if (k < 33) {
      return expr(randomType(), c, depth - 1) + (r.nextBoolean() ? " IS NULL" : " IS NOT NULL");
    }
    if (k < 37) {
      FuzzType t = randomType();
      return expr(t, c, depth - 1)
          + (r.nextBoolean() ? " IS DISTINCT FROM " : " IS NOT DISTINCT FROM ")
          + expr(t, c, depth - 1);
    }
    if (k < 40) {
      List<Col> bools = c.agg() ? List.of() : c.scope.ofType(FuzzType.BOOLEAN);
      if (bools.isEmpty()) {
        return r.nextBoolean() ? "TRUE" : "FALSE";
      }
      String b = pick(bools).sql();
      return switch (r.nextInt(5)) {
        case 0 -> b + " IS TRUE";
        case 1 -> b + " IS NOT FALSE";
        case 2 -> b + " IS NOT TRUE";
        default -> b;
      };
    }
    if (k < 46) {
      FuzzType t =
          pick(
              new FuzzType[] {
                FuzzType.INT, FuzzType.DECIMAL, FuzzType.DATE, FuzzType.VARCHAR, FuzzType.BIGINT
              });
      return expr(t, c, depth - 1)
          + (r.nextInt(4) == 0 ? " NOT BETWEEN " : " BETWEEN ")
          + literal(t)
          + " AND "
          + literal(t);
    }
    if (k < 52) {
      FuzzType t =
          pick(
              new FuzzType[] {
                FuzzType.INT, FuzzType.VARCHAR, FuzzType.BIGINT, FuzzType.DATE, FuzzType.DECIMAL
              });
      StringBuilder list = new StringBuilder();
      int n = 1 + r.nextInt(4);
      for (int i = 0; i < n; i++) {
        list.append(i == 0 ? "" : ", ").append(r.nextInt(8) == 0 ? "NULL" : literal(t));
      }
      return expr(t, c, depth - 1) + (r.nextInt(3) == 0 ? " NOT IN (" : " IN (") + list + ")";
    }
    if (k < 56) {
      return expr(FuzzType.VARCHAR, c, depth - 1)
          + (r.nextInt(4) == 0 ? " NOT LIKE '" : " LIKE '")
          + pick(LIKE_PATTERNS)
          + "'";
    }
    if (k < 63) {
      return "NOT (" + pred(c, depth - 1) + ")";
    }
    if (k < 75) {
      return "(" + pred(c, depth - 1) + " AND " + pred(c, depth - 1) + ")";
    }
    if (k < 84) {
      return "(" + pred(c, depth - 1) + " OR " + pred(c, depth - 1) + ")";
    }
    if (c.canNest()) {
      return subqueryPredicate(c);
    }
    return pred(c, depth - 1);
  }

  private String comparison() {
    return pick(new String[] {"=", "=", "<>", "<", "<=", ">", ">="});
  }

  /** The FROM and WHERE of a subquery of {@code outer}, maybe correlated to it. */
  private record Sub(String from, String where, Ctx inner) {}

  private Sub subquery(Ctx outer, boolean exists) {
    outer.budget[0]--;
    List<Col> correlatable = outer.correlatable();
    From from =
        !correlatable.isEmpty() && r.nextInt(6) == 0
            ? correlatedFrom(correlatable, exists)
            : from(r.nextInt(5) == 0 ? 2 : 1, 5);
    // The subquery's own subqueries may refer to this query's columns and to those of every
    // query around it.
    Ctx inner = new Ctx(from.scope, null, false, outer.nesting + 1, outer.budget, correlatable);
    List<String> conjuncts = new ArrayList<>();
    if (!correlatable.isEmpty() && r.nextInt(10) < 7) {
      int n = r.nextInt(3) == 0 ? 2 : 1;
      boolean range = false;
      boolean unequal = false;
      // A derived table correlated by IS NOT DISTINCT FROM counts as such a conjunct (below).
      boolean notDistinct = from.sql.contains("IS NOT DISTINCT FROM");
      for (int i = 0; i < n; i++) {
        Col o = pick(correlatable);
        List<Col> candidates = from.scope.comparableWith(o.type());
        if (candidates.isEmpty()) {
          continue;
        }
        Col in = pick(candidates);
        int k = r.nextInt(100);
        String op =
            k < 55
                ? "="
                : k < 80
                    ? pick(new String[] {"<", "<=", ">", ">="})
                    : k < 90 ? "<>" : k < 95 ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM";
        if (exists && op.equals("IS DISTINCT FROM")) {
          op = "<>";
        }
        boolean isRange = op.startsWith("<") && !op.equals("<>") || op.startsWith(">");
        boolean isUnequal = op.equals("<>") || op.equals("IS DISTINCT FROM");
        boolean isNotDistinct = op.equals("IS NOT DISTINCT FROM");
        if (exists
            && ((isRange && (unequal || notDistinct)) || ((isUnequal || isNotDistinct) && range))) {
          op = "=";
          isRange = false;
          isUnequal = false;
          isNotDistinct = false;
        }
        range |= isRange;
        unequal |= isUnequal;
        notDistinct |= isNotDistinct;
        // DuckDB 1.4.4 is wrong when an EXISTS it runs as a mark join (outside a top-level WHERE
        // conjunct) compares a NULL outer value with <> (see the class comment): the outer side
        // is made non-NULL, keeping the correlated <> that marking joins check row by row.
        String outerSql =
            exists && op.equals("<>")
                ? "COALESCE(" + o.sql() + ", " + literal(o.type()) + ")"
                : o.sql();
        conjuncts.add(
            r.nextBoolean()
                ? in.sql() + " " + op + " " + outerSql
                : outerSql + " " + flip(op) + " " + in.sql());
      }
    }
    if (r.nextBoolean() || conjuncts.isEmpty() && r.nextBoolean()) {
      conjuncts.add(pred(inner, depth));
    }
    return new Sub(from.sql, conjuncts.isEmpty() ? null : String.join(" AND ", conjuncts), inner);
  }

  /**
   * One or two FROM items of a subquery, at least one of them a derived table correlated to a
   * column of an enclosing query ({@code (SELECT * FROM t AS a2 WHERE a2.x = a1.y) AS a3}).
   */
  private From correlatedFrom(List<Col> correlatable, boolean exists) {
    From acc = correlatedItem(correlatable, exists);
    if (r.nextBoolean()) {
      From next = r.nextBoolean() ? correlatedItem(correlatable, exists) : plainItem();
      String type = pick(new String[] {"JOIN", "JOIN", "LEFT JOIN", "FULL JOIN"});
      acc =
          new From(
              acc.sql + " " + type + " " + next.sql + " ON " + joinCondition(acc.scope, next.scope),
              acc.scope.plus(next.scope));
    }
    return acc;
  }

  private From correlatedItem(List<Col> correlatable, boolean exists) {
    FuzzTables.Table t = pick(tables);
    String inner = "a" + (++aliases);
    String alias = "a" + (++aliases);
    Col o = pick(correlatable);
    List<FuzzTables.Column> candidates =
        t.columns().stream().filter(c -> c.type().comparableWith(o.type())).toList();
    String where;
    if (candidates.isEmpty()) {
      where = o.sql() + " IS NOT NULL";
    } else {
      // Under EXISTS only equalities (DuckDB's bug with ranges and <> together, below).
      String op =
          exists
              ? pick(new String[] {"=", "=", "IS NOT DISTINCT FROM"})
              : pick(new String[] {"=", "=", "=", "<", ">=", "<>", "IS NOT DISTINCT FROM"});
      where = inner + "." + pick(candidates).name() + " " + op + " " + o.sql();
    }
    List<Col> cols = new ArrayList<>();
    for (FuzzTables.Column c : t.columns()) {
      cols.add(new Col(alias + "." + c.name(), c.type()));
    }
    return new From(
        "(SELECT * FROM " + t.from(r) + " AS " + inner + " WHERE " + where + ") AS " + alias,
        new Scope(List.copyOf(cols), List.of(alias + ".id")));
  }

  private From plainItem() {
    FuzzTables.Table t = pick(tables);
    String alias = "a" + (++aliases);
    List<Col> cols = new ArrayList<>();
    for (FuzzTables.Column c : t.columns()) {
      cols.add(new Col(alias + "." + c.name(), c.type()));
    }
    return new From(
        t.from(r) + " AS " + alias, new Scope(List.copyOf(cols), List.of(alias + ".id")));
  }

  private static String flip(String op) {
    return switch (op) {
      case "<" -> ">";
      case ">" -> "<";
      case "<=" -> ">=";
      case ">=" -> "<=";
      default -> op;
    };
  }

  private String subqueryPredicate(Ctx c) {
    int k = r.nextInt(100);
    if (k < 35) {
      Sub s = subquery(c, true);
      String select = r.nextBoolean() ? "SELECT 1" : "SELECT *";
      return (r.nextInt(5) < 2 ? "NOT " : "")
          + "EXISTS ("
          + select
          + " FROM "
          + s.from
          + where(s)
          + ")";
    }
    FuzzType t = randomType();
    if (t == FuzzType.BOOLEAN) {
      t = FuzzType.INT;
    }
    String lhs = expr(t, c, 1);
    if (k < 70) {
      Sub s = subquery(c, false);
      FuzzType u = t.numeric() ? numericType() : t;
      return lhs
          + (r.nextInt(5) < 2 ? " NOT IN (" : " IN (")
          + "SELECT "
          + expr(u, s.inner, 1)
          + " FROM "
          + s.from
          + where(s)
          + ")";
    }
    if (k < 80) {
      Sub s = subquery(c, false);
      FuzzType u = t.numeric() ? numericType() : t;
      return lhs
          + " "
          + comparison()
          + (r.nextBoolean() ? " ANY (" : " ALL (")
          + "SELECT "
          + expr(u, s.inner, 1)
          + " FROM "
          + s.from
          + where(s)
          + ")";
    }
    return lhs + " " + comparison() + " " + scalarSubquery(t.numeric() ? numericType() : t, c);
  }

  private static String where(Sub s) {
    return s.where == null ? "" : " WHERE " + s.where;
  }

  /** A subquery giving one value: an aggregate, or a lookup of a row by its unique id. */
  private String scalarSubquery(FuzzType t, Ctx c) {
    List<Col> ints = c.correlatable().stream().filter(col -> col.type() == FuzzType.INT).toList();
    if (r.nextInt(4) == 0) {
      c.budget[0]--;
      String alias = "a" + (++aliases);
      FuzzTables.Table table = pick(tables);
      List<Col> cols = new ArrayList<>();
      for (FuzzTables.Column col : table.columns()) {
        cols.add(new Col(alias + "." + col.name(), col.type()));
      }
      Ctx inner =
          new Ctx(new Scope(List.copyOf(cols), null), null, false, c.nesting + 1, new int[] {0});
      String key =
          ints.isEmpty() || r.nextInt(5) == 0 ? Integer.toString(r.nextInt(12)) : pick(ints).sql();
      return "(SELECT "
          + expr(t, inner, 1)
          + " FROM "
          + table.from(r)
          + " AS "
          + alias
          + " WHERE "
          + alias
          + ".id = "
          + key
          + ")";
    }
    Sub s = subquery(c, false);
    if (r.nextInt(50) == 0) {
      // Any number of rows: more than one is an error in both engines.
      return "(SELECT " + expr(t, s.inner.rowsOnly(), 1) + " FROM " + s.from + where(s) + ")";
    }
    Ctx agg =
        new Ctx(new Scope(List.of(), null), s.inner.scope, false, s.inner.nesting, new int[] {0});
    String call = aggregateCall(t, agg);
    return "(SELECT "
        + (r.nextInt(4) == 0 ? "COALESCE(" + call + ", " + literal(t) + ")" : call)
        + " FROM "
        + s.from
        + where(s)
        + ")";
  }

  // ---------------------------------------------------------------- literals and choices

  private String literal(FuzzType t) {
    return switch (t) {
      case INT -> signed(r.nextInt(12) - 3);
      case BIGINT ->
          r.nextInt(8) == 0 ? "10000000000" : "CAST(" + signed(r.nextInt(12) - 3) + " AS BIGINT)";
      case DECIMAL ->
          signed(
              BigDecimal.valueOf(r.nextInt(41) - 20, 1)
                  .multiply(BigDecimal.valueOf(25, 1))
                  .setScale(2));
      case DOUBLE -> {
        double v = (r.nextInt(17) - 8) / 2.0;
        yield v < 0 ? "(" + v + "E0)" : v + "E0";
      }
      case VARCHAR -> "'" + pick(WORDS) + "'";
      case DATE -> FuzzTables.literal(LocalDate.of(2020, 1, 1).plusDays(r.nextInt(30) - 5));
      case BOOLEAN -> r.nextBoolean() ? "TRUE" : "FALSE";
      case TIMESTAMP ->
          FuzzTables.literal(
              LocalDate.of(2020, 1, 1).atStartOfDay().plusMinutes(15L * (r.nextInt(240) - 20)));
    };
  }

  private static String signed(Object v) {
    String s = v.toString();
    return s.startsWith("-") ? "(" + s + ")" : s;
  }

  private String smallInt() {
    return signed(r.nextInt(7) - 3);
  }

  private FuzzType randomType() {
    return TYPES[r.nextInt(TYPES.length)];
  }

  private FuzzType numericType() {
    return pick(new FuzzType[] {FuzzType.INT, FuzzType.BIGINT, FuzzType.DECIMAL, FuzzType.DOUBLE});
  }

  private List<FuzzType> randomTypes(int n) {
    List<FuzzType> types = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      types.add(randomType());
    }
    return types;
  }

  private <T> T pick(T[] values) {
    return values[r.nextInt(values.length)];
  }

  private <T> T pick(List<T> values) {
    return values.get(r.nextInt(values.size()));
  }
}
