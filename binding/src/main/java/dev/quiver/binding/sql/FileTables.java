package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.CsvOptions;
import dev.quiver.binding.datasource.CsvTable;
import dev.quiver.binding.datasource.ParquetOptions;
import dev.quiver.binding.datasource.ParquetTable;
import dev.quiver.binding.datasource.TableFunction;
import dev.quiver.binding.datasource.TableFunctionCall;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.io.Listings;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.settings.SessionConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDateLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlTimestampLiteral;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.TimestampString;

/**
 * Files read where a table stands, as DuckDB reads them: {@code FROM read_parquet('path')}, {@code
 * FROM read_csv('path', delim => ';', header => false)} (DuckDB's {@code delim = ';'} too) and
 * {@code FROM 'path.parquet'} ({@link LenientParser} turns the last into a read_parquet or read_csv
 * call by the file's extension). Paths are what {@code registerParquet} and {@code registerCsv}
 * take: local files or folders, globs, {@code s3://bucket/prefix}. Each call becomes a table of the
 * statement (a hidden catalog entry, dropped when the statement has been planned; the plan holds
 * the table itself), so it validates, plans and ships to a cluster like any registered table.
 * Within a statement the same call opens one table, and each location is listed once ({@link
 * Listings}), however often the statement reads it. Calls of the session's {@link TableFunction}s
 * ({@code iceberg_scan('location', snapshot_id => 42)}) become tables of the statement the same
 * way.
 */
final class FileTables {
  /** Prefix of the hidden catalog names; {@link Catalog#names()} skips them. */
  static final String PREFIX = "$file_";

  static final Set<String> PARQUET = Set.of("read_parquet");
  static final Set<String> CSV = Set.of("read_csv", "read_csv_auto");

  private static final AtomicLong NEXT = new AtomicLong();

  private final Catalog catalog;
  private final Supplier<SessionConfig> config;
  private final List<String> registered = new ArrayList<>();

  /** The statement's tables by what opened them (function kind, location and options). */
  private final Map<List<Object>, String> opened = new java.util.HashMap<>();

  private Listings listings = Listings.perStatement();

  FileTables(Catalog catalog, Supplier<SessionConfig> config) {
    this.catalog = catalog;
    this.config = config;
  }

  /**
   * Replaces the file-reading calls in FROM clauses of {@code query} by tables of the statement.
   */
  void expand(SqlNode query) {
    visit(query);
  }

  /** Drops the tables {@link #expand} registered. */
  synchronized void drop() {
    for (String name : registered) {
      catalog.remove(name);
    }
    registered.clear();
    opened.clear();
    listings = Listings.perStatement();
  }

  private void visit(SqlNode node) {
    if (node instanceof SqlSelect select && select.getFrom() != null) {
      select.setFrom(from(select.getFrom()));
    }
    if (node instanceof SqlJoin join) {
      join.setLeft(from(join.getLeft()));
      join.setRight(from(join.getRight()));
    }
    if (node instanceof SqlNodeList list) {
      for (SqlNode n : list) {
        visit(n);
      }
    } else if (node instanceof SqlCall call) {
      for (SqlNode operand : call.getOperandList()) {
        if (operand != null) {
          visit(operand);
        }
      }
    }
  }

  /** A FROM item with a file call replaced (keeping its alias, else named after the function). */
  private SqlNode from(SqlNode item) {
    if (item instanceof SqlJoin join) {
      join.setLeft(from(join.getLeft()));
      join.setRight(from(join.getRight()));
      return join;
    }
    if (item instanceof SqlCall as
        && as.getKind() == SqlKind.AS
        && as.operand(0) instanceof SqlCall s
        && s.getKind() == SqlKind.SNAPSHOT) {
      as.setOperand(0, snapshotTable(s));
      return as;
    }
    if (item instanceof SqlCall s && s.getKind() == SqlKind.SNAPSHOT) {
      SqlIdentifier id = s.operand(0) instanceof SqlIdentifier i ? i : null;
      String alias = id == null ? "t" : id.names.get(id.names.size() - 1);
      return SqlStdOperatorTable.AS.createCall(
          item.getParserPosition(), snapshotTable(s), new SqlIdentifier(alias, SqlParserPos.ZERO));
    }
    if (item instanceof SqlCall as && as.getKind() == SqlKind.AS) {
      SqlCall file = fileCall(as.operand(0));
      if (file != null) {
        as.setOperand(0, table(file));
      }
      return as;
    }
    SqlCall file = fileCall(item);
    if (file == null) {
      return item;
    }
    String alias = file.getOperator().getName().toLowerCase(Locale.ROOT);
    return SqlStdOperatorTable.AS.createCall(
        item.getParserPosition(), table(file), new SqlIdentifier(alias, SqlParserPos.ZERO));
  }

  /**
   * The read_parquet/read_csv or table function call of a FROM item (bare or in TABLE(...)), or
   * null.
   */
  private SqlCall fileCall(SqlNode node) {
    if (node instanceof SqlCall c && c.getKind() == SqlKind.COLLECTION_TABLE) {
      node = c.operand(0);
    }
    if (node instanceof SqlBasicCall call) {
      String name = call.getOperator().getName().toLowerCase(Locale.ROOT);
      if (PARQUET.contains(name) || CSV.contains(name) || catalog.tableFunction(name) != null) {
        return call;
      }
    }
    return null;
  }

  private SqlIdentifier table(SqlCall call) {
    String function = call.getOperator().getName().toLowerCase(Locale.ROOT);
    if (!PARQUET.contains(function) && !CSV.contains(function)) {
      return functionTable(function, call);
    }
    List<SqlNode> args = call.getOperandList();
    if (args.isEmpty() || !(args.get(0) instanceof SqlCharStringLiteral pathLiteral)) {
      throw new QueryTypeException(
          function
              + " takes the path as its first argument, a string: "
              + function
              + "('data/file')");
    }
    String path = pathLiteral.getValueAs(String.class);
    Map<String, String> options = new LinkedHashMap<>();
    for (SqlNode arg : args.subList(1, args.size())) {
      option(function, arg, options);
    }
    boolean parquet = PARQUET.contains(function);
    ParquetOptions parquetOptions = parquet ? parquetOptions(function, options) : null;
    List<Object> key = List.of(parquet, ObjectStores.normalize(path), options);
    Listings statementListings;
    synchronized (this) {
      String known = opened.get(key);
      if (known != null) {
        return new SqlIdentifier(known, call.getParserPosition());
      }
      statementListings = listings;
    }
    TableProvider provider =
        parquet
            ? ParquetTable.open(path, config.get(), parquetOptions, statementListings)
            : CsvTable.openSniffing(
                path,
                CsvOptions.fromSettings(options),
                CsvOptions.DELIMITER_KEYS.stream().noneMatch(options::containsKey),
                !options.containsKey("header"),
                config.get(),
                statementListings);
    String name = PREFIX + NEXT.incrementAndGet();
    synchronized (this) {
      catalog.putTable(new Catalog.TableEntry(name, provider, false));
      registered.add(name);
      opened.put(key, name);
    }
    return new SqlIdentifier(name, call.getParserPosition());
  }

  /**
   * read_parquet's options: {@code hive_partitioning} (default true: {@code name=value} folders
   * below the path's folder, or below a glob's first wildcard, become columns, as in DuckDB, which
   * detects them).
   */
  private static ParquetOptions parquetOptions(String function, Map<String, String> options) {
    ParquetOptions o = ParquetOptions.DEFAULT;
    for (Map.Entry<String, String> e : options.entrySet()) {
      String v = e.getValue().toLowerCase(Locale.ROOT);
      if (!e.getKey().equals("hive_partitioning")
          || !(v.equals("true") || v.equals("false") || v.equals("1") || v.equals("0"))) {
        throw new QueryTypeException(
            function
                + " takes one option, hive_partitioning => true or false; got "
                + e.getKey()
                + " => "
                + e.getValue());
      }
      o = o.withHivePartitioning(v.equals("true") || v.equals("1"));
    }
    return o;
  }

  /**
   * The table of {@code cat.ns.t FOR SYSTEM_TIME AS OF point} ({@link TimeTravel}), once per
   * statement for the same table and point.
   */
  private SqlIdentifier snapshotTable(SqlCall snapshot) {
    if (!(snapshot.operand(0) instanceof SqlIdentifier id)) {
      throw new UnsupportedFeatureException(
          "FOR VERSION AS OF and FOR TIMESTAMP AS OF follow a table name, not "
              + snapshot.operand(0));
    }
    Object point = constant("FOR VERSION/TIMESTAMP AS OF", snapshot.operand(1));
    List<Object> key = List.of("$snapshot", id.names, point);
    synchronized (this) {
      String known = opened.get(key);
      if (known != null) {
        return new SqlIdentifier(known, snapshot.getParserPosition());
      }
    }
    TableProvider provider = TimeTravel.open(catalog, id, point);
    String name = PREFIX + NEXT.incrementAndGet();
    synchronized (this) {
      catalog.putTable(new Catalog.TableEntry(name, provider, false));
      registered.add(name);
      opened.put(key, name);
    }
    return new SqlIdentifier(name, snapshot.getParserPosition());
  }

  /** The table a {@link TableFunction} call opens, once per statement for the same arguments. */
  private SqlIdentifier functionTable(String function, SqlCall call) {
    TableFunction tableFunction = catalog.tableFunction(function);
    List<Object> arguments = new ArrayList<>();
    Map<String, Object> options = new LinkedHashMap<>();
    for (SqlNode arg : call.getOperandList()) {
      if (arg instanceof SqlCall c && c.getKind() == SqlKind.ARGUMENT_ASSIGNMENT) {
        options.put(
            ((SqlIdentifier) c.operand(1)).getSimple().toLowerCase(Locale.ROOT),
            constant(function, c.operand(0)));
      } else if (options.isEmpty()) {
        arguments.add(constant(function, arg));
      } else {
        throw new QueryTypeException(
            function + ": positional arguments come before the named ones (name => value)");
      }
    }
    List<Object> key = List.of(function, arguments, options);
    synchronized (this) {
      String known = opened.get(key);
      if (known != null) {
        return new SqlIdentifier(known, call.getParserPosition());
      }
    }
    TableProvider provider =
        tableFunction.open(new TableFunctionCall(function, arguments, options, config.get()));
    String name = PREFIX + NEXT.incrementAndGet();
    synchronized (this) {
      catalog.putTable(new Catalog.TableEntry(name, provider, false));
      registered.add(name);
      opened.put(key, name);
    }
    return new SqlIdentifier(name, call.getParserPosition());
  }

  /** A constant argument of a table function as a Java value (see {@link TableFunctionCall}). */
  private static Object constant(String function, SqlNode node) {
    boolean negate = false;
    if (node instanceof SqlCall c && c.getKind() == SqlKind.MINUS_PREFIX) {
      negate = true;
      node = c.operand(0);
    }
    if (node instanceof SqlCharStringLiteral s && !negate) {
      return s.getValueAs(String.class);
    }
    if (node instanceof SqlNumericLiteral n) {
      java.math.BigDecimal v = n.getValueAs(java.math.BigDecimal.class);
      v = negate ? v.negate() : v;
      if (n.isExact() && v.scale() <= 0) {
        try {
          return v.longValueExact();
        } catch (ArithmeticException e) {
          return v;
        }
      }
      return n.isExact() ? v : (Object) v.doubleValue();
    }
    if (!negate && node instanceof SqlLiteral l && l.getTypeName() == SqlTypeName.BOOLEAN) {
      return l.booleanValue();
    }
    if (!negate && node instanceof SqlDateLiteral d) {
      return java.time.LocalDate.parse(d.getValueAs(DateString.class).toString());
    }
    if (!negate && node instanceof SqlTimestampLiteral t) {
      return java.time.LocalDateTime.parse(
          t.getValueAs(TimestampString.class).toString().replace(' ', 'T'));
    }
    if (!negate && node instanceof SqlLiteral l) {
      // Babel leaves DATE '...' and TIMESTAMP '...' as literals of unknown type: read their text.
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("(?i)(DATE|TIMESTAMP) '([^']*)'").matcher(l.toString());
      if (m.matches()) {
        String text = m.group(2).trim();
        try {
          return m.group(1).equalsIgnoreCase("DATE")
              ? java.time.LocalDate.parse(text)
              : java.time.LocalDateTime.parse(text.replace(' ', 'T'));
        } catch (java.time.format.DateTimeParseException e) {
          throw new QueryTypeException(
              function + ": " + l + " is not a valid " + m.group(1).toUpperCase(Locale.ROOT), e);
        }
      }
    }
    throw new QueryTypeException(
        function + " takes constant arguments (strings, numbers, dates, timestamps), got " + node);
  }

  /** One {@code name => value} (PostgreSQL) or {@code name = value} (DuckDB) argument. */
  private static void option(String function, SqlNode arg, Map<String, String> options) {
    SqlNode name = null;
    SqlNode value = null;
    if (arg instanceof SqlCall c && c.getKind() == SqlKind.ARGUMENT_ASSIGNMENT) {
      value = c.operand(0);
      name = c.operand(1);
    } else if (arg instanceof SqlCall c && c.getKind() == SqlKind.EQUALS) {
      name = c.operand(0);
      value = c.operand(1);
    }
    if (!(name instanceof SqlIdentifier id) || !(value instanceof SqlLiteral literal)) {
      throw new QueryTypeException(
          function
              + " options are written name => value (or name = value) with a constant, got "
              + arg);
    }
    Object v = literal.getValue();
    String text =
        literal instanceof SqlCharStringLiteral s ? s.getValueAs(String.class) : String.valueOf(v);
    options.put(id.getSimple().toLowerCase(Locale.ROOT), text);
  }
}
