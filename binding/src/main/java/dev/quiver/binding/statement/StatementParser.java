package dev.quiver.binding.statement;

import dev.quiver.binding.datasource.WritableTableCatalog;
import dev.quiver.binding.errors.SqlParseException;
import dev.quiver.binding.statement.SqlTokens.Kind;
import dev.quiver.binding.statement.SqlTokens.Token;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A recursive-descent parser for the statements Quiver runs itself (see {@link Statement}); any
 * other statement becomes {@link Statement.Other} for Calcite's parser. Malformed statements throw
 * {@link SqlParseException} naming what was expected, what was found, and the line and column.
 *
 * <p>Calcite's Babel grammar lacks CREATE EXTERNAL TABLE, COPY, OPTIONS lists and DuckDB's SET and
 * DESCRIBE forms; extending it means generating a parser at build time (FMPP and JavaCC over
 * Calcite's templates), which the offline build cannot fetch. These statements are small, so a
 * parser over {@link SqlTokens} reads them, and hands each query they embed to Calcite as text with
 * its position.
 */
public final class StatementParser {
  /**
   * Leading words of statements that change data or settings: not queries, so never the {@code
   * (query)} of COPY, which would run them and copy nothing.
   */
  private static final Set<String> NOT_QUERIES =
      Set.of(
          "SET",
          "RESET",
          "CREATE",
          "DROP",
          "ALTER",
          "COPY",
          "INSERT",
          "UPSERT",
          "UPDATE",
          "DELETE",
          "MERGE",
          "TRUNCATE",
          "ATTACH",
          "DETACH");

  private final SqlTokens tokens;
  private final String text;
  private final int start;
  private final int end;

  /**
   * Whether errors show found tokens by kind only, not their text: in SET and OPTIONS, where a
   * token may be a secret's value.
   */
  private boolean hideTokens;

  private StatementParser(String text, int start, int end) {
    this.tokens = new SqlTokens(text, start, end);
    this.text = text;
    this.start = start;
    this.end = end;
  }

  /**
   * Parses one statement (trailing semicolons allowed).
   *
   * @throws SqlParseException for a malformed statement, or text with no statement (empty, blank or
   *     only comments)
   */
  public static Statement parse(String sql) {
    StatementParser parser = new StatementParser(sql, 0, endOfStatement(sql));
    Token first = parser.tokens.peek();
    if (first.kind() == Kind.END) {
      throw parser.tokens.error(0, "no statement to run: the text is empty or holds only comments");
    }
    return parser.statement(true);
  }

  /**
   * The first word of {@code sql} in upper case, after blanks and comments; empty when the
   * statement does not start with a word.
   */
  public static String leadingWord(String sql) {
    try {
      Token t = new SqlTokens(sql, 0, sql.length()).peek();
      return t.kind() == Kind.WORD ? t.upper() : "";
    } catch (SqlParseException e) {
      return "";
    }
  }

  /** The offset of {@link #leadingWord}'s word in {@code sql}, or -1 when there is none. */
  public static int leadingWordStart(String sql) {
    try {
      Token t = new SqlTokens(sql, 0, sql.length()).peek();
      return t.kind() == Kind.WORD ? t.start() : -1;
    } catch (SqlParseException e) {
      return -1;
    }
  }

  /** The offset after the statement's text: trailing blanks and semicolons dropped. */
  private static int endOfStatement(String sql) {
    int e = sql.length();
    while (e > 0 && (Character.isWhitespace(sql.charAt(e - 1)) || sql.charAt(e - 1) == ';')) {
      e--;
    }
    return e;
  }

  /**
   * One statement; {@code topLevel} false for COPY's {@code (query)}, which takes a query, EXPLAIN,
   * DESCRIBE or SHOW, and never a statement that changes data or settings.
   */
  private Statement statement(boolean topLevel) {
    Token first = tokens.peek();
    if (first.kind() != Kind.WORD) {
      return other();
    }
    String word = first.upper();
    if (!topLevel && NOT_QUERIES.contains(word)) {
      throw tokens.error(
          first.start(),
          "COPY (...) takes a query, EXPLAIN, DESCRIBE or SHOW TABLES, not "
              + word
              + ": it would run "
              + word
              + " and copy no rows; run it on its own");
    }
    return switch (word) {
      case "SET" -> set();
      case "ALTER" -> alter();
      case "CREATE" -> create();
      case "DROP" -> drop();
      case "COPY" -> copy();
      case "SHOW" -> show();
      case "DESCRIBE", "DESC" -> describe();
      case "EXPLAIN" -> explain();
      case "ATTACH" -> topLevel ? attach() : other();
      case "DETACH" -> topLevel ? detach() : other();
      default -> other();
    };
  }

  // ---- SET ----------------------------------------------------------------------------------

  private Statement set() {
    tokens.next();
    // Missing its =, the value is the token an error would show.
    hideTokens = true;
    StringBuilder key = new StringBuilder(namePart("a setting name after SET"));
    while (tokens.peek().isSymbol('.')) {
      tokens.next();
      key.append('.').append(namePart("a setting name after '" + key + ".'"));
    }
    Token t = tokens.next();
    if (!t.isSymbol('=') && !t.isWord("TO")) {
      throw expected("= or TO after SET " + key, t);
    }
    List<Token> value = new ArrayList<>();
    while (tokens.peek().kind() != Kind.END && !tokens.peek().isSymbol(';')) {
      value.add(tokens.next());
    }
    if (value.isEmpty()) {
      throw expected("a value after SET " + key + " " + t.text(), tokens.peek());
    }
    expectEnd("after the value of SET " + key);
    return new Statement.SetOption(key.toString(), raw(value));
  }

  /**
   * {@code ALTER SESSION|SYSTEM SET key = value}: SET, read here so that its errors hide the value
   * as SET's do (Calcite's echo the token they stop at); any other ALTER is Calcite's.
   */
  private Statement alter() {
    Token scope = tokens.peekSecond();
    if (!scope.isWord("SESSION") && !scope.isWord("SYSTEM")) {
      return other();
    }
    tokens.next();
    tokens.next();
    return tokens.peek().isWord("SET") ? set() : other();
  }

  /** One part of a dotted setting name: a word as typed or a quoted name. */
  private String namePart(String what) {
    Token t = tokens.next();
    if (t.kind() == Kind.WORD) {
      return t.text();
    }
    if (t.kind() == Kind.QUOTED_NAME && t.text().length() > 2) {
      return t.unquoted();
    }
    throw expected(what, t);
  }

  /** A single literal or quoted name as its value; several tokens as the text they span. */
  private String raw(List<Token> value) {
    if (value.size() == 1) {
      return value.get(0).unquoted();
    }
    return text.substring(value.get(0).start(), value.get(value.size() - 1).end());
  }

  // ---- CREATE -------------------------------------------------------------------------------

  private Statement create() {
    tokens.next();
    boolean orReplace = false;
    if (tokens.peek().isWord("OR")) {
      tokens.next();
      expectWord("REPLACE", "after CREATE OR");
      orReplace = true;
    }
    Token t = tokens.next();
    if (t.isWord("TABLE")) {
      return createTable(orReplace);
    }
    if (t.isWord("VIEW")) {
      return createView(orReplace);
    }
    if (t.isWord("EXTERNAL") && !orReplace) {
      expectWord("TABLE", "after CREATE EXTERNAL");
      return createExternal();
    }
    if (t.isWord("UNIQUE") && !orReplace) {
      expectWord("INDEX", "after CREATE UNIQUE");
      return createIndex(true);
    }
    if (t.isWord("INDEX") && !orReplace) {
      return createIndex(false);
    }
    throw expected(
        orReplace
            ? "TABLE or VIEW after CREATE OR REPLACE"
            : "TABLE, VIEW, EXTERNAL TABLE or [UNIQUE] INDEX after CREATE",
        t);
  }

  /**
   * {@code [IF NOT EXISTS] name ON table [USING method] (column [ASC|DESC] [NULLS FIRST|LAST],
   * ...)}, as SQLite, PostgreSQL and DuckDB write it; the method and orders only describe storage.
   */
  private Statement createIndex(boolean unique) {
    String kind = unique ? "CREATE UNIQUE INDEX" : "CREATE INDEX";
    boolean ifNotExists = ifNotExists();
    String name = name("an index name after " + kind);
    expectWord("ON", "after " + kind + " " + name);
    String table = name("a table name after ON in " + kind + " " + name);
    if (tokens.peek().isWord("USING")) {
      tokens.next();
      name("an index method after USING");
    }
    expectSymbol('(', "before the column list of index " + name);
    List<String> columns = new ArrayList<>();
    do {
      columns.add(name("a column name in the column list of index " + name));
      if (tokens.peek().isWord("ASC") || tokens.peek().isWord("DESC")) {
        tokens.next();
      }
      if (tokens.peek().isWord("NULLS")) {
        tokens.next();
        Token order = tokens.next();
        if (!order.isWord("FIRST") && !order.isWord("LAST")) {
          throw expected("FIRST or LAST after NULLS", order);
        }
      }
    } while (comma());
    expectSymbol(')', "after the column list of index " + name + " (an index takes columns)");
    expectEnd("after " + kind + " " + name + " ON " + table + " (...)");
    return new Statement.CreateIndex(name, unique, ifNotExists, table, columns);
  }

  private Statement createTable(boolean orReplace) {
    boolean ifNotExists = ifNotExists();
    List<String> path = dottedName("a table name after CREATE TABLE");
    String name = String.join(".", path);
    if (path.size() > 1) {
      if (orReplace) {
        throw tokens.error(
            tokens.peek().start(),
            "CREATE OR REPLACE TABLE is for session tables; DROP TABLE " + name + " first");
      }
      return createCatalogTable(path, ifNotExists);
    }
    Token t = tokens.peek();
    if (t.isWord("AS")) {
      tokens.next();
      return new Statement.CreateTableAs(
          name, orReplace, ifNotExists, rest("a query after CREATE TABLE " + name + " AS"));
    }
    if (t.isSymbol('(')) {
      int open = tokens.next().end();
      int close = closingParenthesis(open);
      if (tokens.peek().isWord("PARTITIONED")) {
        throw partitionedSessionTable(name);
      }
      expectEnd("after the column list of CREATE TABLE " + name);
      return new Statement.CreateTable(name, orReplace, ifNotExists, text.substring(open, close));
    }
    if (t.isWord("PARTITIONED")) {
      throw partitionedSessionTable(name);
    }
    throw expected("AS query or (column definitions) after CREATE TABLE " + name, t);
  }

  private SqlParseException partitionedSessionTable(String name) {
    return tokens.error(
        tokens.peek().start(),
        "PARTITIONED BY is for tables of an attached catalog (catalog.namespace.table), not "
            + name);
  }

  /** CREATE TABLE of an attached catalog's table, after its name. */
  private Statement createCatalogTable(List<String> path, boolean ifNotExists) {
    String name = String.join(".", path);
    String elements = null;
    if (tokens.peek().isSymbol('(')) {
      int open = tokens.next().end();
      elements = text.substring(open, closingParenthesis(open));
    }
    List<WritableTableCatalog.PartitionField> partitionBy = new ArrayList<>();
    if (tokens.peek().isWord("PARTITIONED")) {
      tokens.next();
      expectWord("BY", "after PARTITIONED");
      expectSymbol('(', "after PARTITIONED BY");
      do {
        partitionBy.add(partitionField(name));
      } while (comma());
      expectSymbol(')', "after the PARTITIONED BY list of " + name);
    }
    if (elements != null) {
      expectEnd("after CREATE TABLE " + name + " (...)");
      return new Statement.CreateCatalogTable(path, ifNotExists, elements, partitionBy, null);
    }
    Token t = tokens.next();
    if (!t.isWord("AS")) {
      throw expected("AS query or (column definitions) after CREATE TABLE " + name, t);
    }
    return new Statement.CreateCatalogTable(
        path, ifNotExists, null, partitionBy, rest("a query after CREATE TABLE " + name + " AS"));
  }

  /** {@code column}, {@code transform(column)} or {@code transform(N, column)}. */
  private WritableTableCatalog.PartitionField partitionField(String table) {
    String what = "a column or transform in PARTITIONED BY of " + table;
    String first = name(what);
    if (!tokens.peek().isSymbol('(')) {
      return new WritableTableCatalog.PartitionField("identity", null, first);
    }
    tokens.next();
    Integer argument = null;
    if (tokens.peek().kind() == Kind.NUMBER) {
      Token n = tokens.next();
      try {
        argument = Integer.parseInt(n.text());
      } catch (NumberFormatException e) {
        throw expected("a whole number in " + first + "(...)", n);
      }
      expectSymbol(',', "after " + first + "(" + argument);
    }
    String column = name("a column name in " + first + "(...)");
    expectSymbol(')', "after " + first + "(..." + column);
    return new WritableTableCatalog.PartitionField(
        first.toLowerCase(Locale.ROOT), argument, column);
  }

  private Statement createView(boolean orReplace) {
    String name = name("a view name after CREATE VIEW");
    List<String> columns = new ArrayList<>();
    if (tokens.peek().isSymbol('(')) {
      tokens.next();
      do {
        columns.add(name("a column name in the column list of view " + name));
      } while (comma());
      expectSymbol(')', "after the column list of view " + name);
    }
    expectWord("AS", "before the query of CREATE VIEW " + name);
    return new Statement.CreateView(
        name, orReplace, List.copyOf(columns), rest("a query after CREATE VIEW " + name + " AS"));
  }

  private Statement createExternal() {
    boolean ifNotExists = ifNotExists();
    String name = name("a table name after CREATE EXTERNAL TABLE");
    List<Statement.ColumnType> columns = new ArrayList<>();
    if (tokens.peek().isSymbol('(') && tokens.peekSecond().isSymbol(')')) {
      // An empty list declares no columns, as no list does.
      tokens.next();
      tokens.next();
    } else if (tokens.peek().isSymbol('(')) {
      tokens.next();
      do {
        columns.add(columnType(name));
      } while (comma());
      expectSymbol(')', "after the column list of CREATE EXTERNAL TABLE " + name);
    }
    expectWord("STORED", "AS format after CREATE EXTERNAL TABLE " + name);
    expectWord("AS", "after STORED");
    Token format = tokens.next();
    if (format.kind() != Kind.WORD) {
      throw expected("a format (PARQUET or CSV) after STORED AS", format);
    }
    expectWord("LOCATION", "'path' after STORED AS " + format.text());
    String location = string("a quoted path after LOCATION");
    Map<String, String> options = new LinkedHashMap<>();
    if (tokens.peek().isWord("OPTIONS")) {
      tokens.next();
      externalOptions(options);
    }
    expectEnd("after CREATE EXTERNAL TABLE " + name + " ... LOCATION '" + location + "'");
    return new Statement.CreateExternalTable(
        name,
        ifNotExists,
        List.copyOf(columns),
        format.upper(),
        location,
        Collections.unmodifiableMap(options));
  }

  /** {@code name TYPE [NOT NULL | NULL]}, ending before a top-level comma or parenthesis. */
  private Statement.ColumnType columnType(String table) {
    String column = name("a column name in the column list of " + table);
    List<Token> type = new ArrayList<>();
    int depth = 0;
    while (true) {
      Token t = tokens.peek();
      if (t.kind() == Kind.END || (depth == 0 && (t.isSymbol(',') || t.isSymbol(')')))) {
        break;
      }
      if (t.isSymbol('(')) {
        depth++;
      } else if (t.isSymbol(')')) {
        depth--;
      }
      type.add(tokens.next());
    }
    boolean notNull = false;
    if (!type.isEmpty() && type.get(type.size() - 1).isWord("NULL")) {
      type.remove(type.size() - 1);
      if (!type.isEmpty() && type.get(type.size() - 1).isWord("NOT")) {
        type.remove(type.size() - 1);
        notNull = true;
      }
    }
    if (type.isEmpty()) {
      throw expected("a type for column " + column, tokens.peek());
    }
    return new Statement.ColumnType(
        column, text.substring(type.get(0).start(), type.get(type.size() - 1).end()), notNull);
  }

  /** {@code ('key' 'value', key = 'value', ...)}; DataFusion's {@code format.} prefix dropped. */
  private void externalOptions(Map<String, String> options) {
    expectSymbol('(', "after OPTIONS");
    // Options may carry credentials ('secret_access_key' '...').
    hideTokens = true;
    while (!tokens.peek().isSymbol(')')) {
      Token k = tokens.next();
      String key;
      if (k.kind() == Kind.STRING) {
        key = k.unquoted();
      } else if (k.kind() == Kind.WORD) {
        StringBuilder dotted = new StringBuilder(k.text());
        while (tokens.peek().isSymbol('.')) {
          tokens.next();
          dotted.append('.').append(namePart("an option name after '" + dotted + ".'"));
        }
        key = dotted.toString();
      } else {
        throw expected("an option name ('delimiter' ';', 'header' 'false', ...) in OPTIONS", k);
      }
      if (tokens.peek().isSymbol('=')) {
        tokens.next();
      }
      String value = string("a quoted value for option " + key);
      if (key.toLowerCase(Locale.ROOT).startsWith("format.")) {
        key = key.substring("format.".length());
      }
      options.put(key, value);
      if (!comma()) {
        break;
      }
    }
    expectSymbol(')', "after the OPTIONS list");
  }

  // ---- DROP, SHOW, DESCRIBE, EXPLAIN ---------------------------------------------------------

  private Statement drop() {
    tokens.next();
    Token kind = tokens.next();
    if (!kind.isWord("TABLE") && !kind.isWord("VIEW") && !kind.isWord("INDEX")) {
      throw expected("TABLE, VIEW or INDEX after DROP", kind);
    }
    // DROP TABLE if: a table named "if".
    boolean ifExists = tokens.peek().isWord("IF") && tokens.peekSecond().isWord("EXISTS");
    if (ifExists) {
      tokens.next();
      tokens.next();
    }
    if (kind.isWord("INDEX")) {
      String name = name("an index name after DROP INDEX");
      expectEnd("after DROP INDEX " + name);
      return new Statement.DropIndex(name, ifExists);
    }
    List<String> path = dottedName("a name after DROP " + kind.upper());
    String name = String.join(".", path);
    expectEnd("after DROP " + kind.upper() + " " + name);
    if (path.size() > 1 && kind.isWord("TABLE")) {
      return new Statement.DropCatalogTable(path, ifExists);
    }
    if (path.size() > 1) {
      throw tokens.error(kind.start(), "views are session objects; DROP VIEW takes a plain name");
    }
    return new Statement.Drop(kind.isWord("VIEW"), name, ifExists);
  }

  private Statement show() {
    tokens.next();
    Token first = tokens.peek();
    if (first.isWord("ALL")) {
      tokens.next();
      expectEnd("after SHOW ALL");
      return new Statement.ShowSettings(null);
    }
    if (!first.isWord("TABLES") && !first.isWord("COLUMNS") && first.kind() == Kind.WORD) {
      String name = String.join(".", dottedName("a setting name after SHOW"));
      expectEnd("after SHOW " + name);
      return new Statement.ShowSettings(name);
    }
    Token t = tokens.next();
    if (t.isWord("TABLES")) {
      Token from = tokens.peek();
      if (from.isWord("FROM") || from.isWord("IN")) {
        tokens.next();
        List<String> path = dottedName("a catalog name after SHOW TABLES " + from.upper());
        if (path.size() > 2) {
          throw tokens.error(
              from.end(),
              "SHOW TABLES "
                  + from.upper()
                  + " takes a catalog or catalog.namespace, got "
                  + String.join(".", path));
        }
        expectEnd("after SHOW TABLES " + from.upper() + " " + String.join(".", path));
        return new Statement.ShowTables(path);
      }
      expectEnd("after SHOW TABLES");
      return new Statement.ShowTables();
    }
    if (t.isWord("COLUMNS")) {
      Token from = tokens.next();
      if (!from.isWord("FROM") && !from.isWord("IN")) {
        throw expected("FROM or IN after SHOW COLUMNS", from);
      }
      List<String> name = dottedName("a table name after SHOW COLUMNS " + from.upper());
      expectEnd("after SHOW COLUMNS " + from.upper() + " " + String.join(".", name));
      return new Statement.Describe(name);
    }
    throw expected("TABLES, COLUMNS, ALL or a setting name after SHOW", t);
  }

  private Statement describe() {
    Token keyword = tokens.next();
    Token t = tokens.peek();
    if ((t.kind() == Kind.WORD && QUERY_WORDS.contains(t.upper())) || t.isSymbol('(')) {
      return new Statement.DescribeQuery(rest("a query after " + keyword.upper()));
    }
    if (t.kind() == Kind.STRING || (t.kind() == Kind.WORD && tokens.peekSecond().isSymbol('('))) {
      // DuckDB's DESCRIBE 'file.parquet' and DESCRIBE read_csv(...): the columns of SELECT * FROM
      // them. The prefix stands before the text, so positions after it are the user's.
      Statement.SqlText from = rest("a file or table function after " + keyword.upper());
      String prefix = "SELECT * FROM ";
      return new Statement.DescribeQuery(
          new Statement.SqlText(
              prefix + from.text(), from.line(), from.column() - prefix.length()));
    }
    // DESCRIBE TABLE t, or DESCRIBE table: a table named "table".
    if (tokens.peek().isWord("TABLE")) {
      Token table = tokens.next();
      if (tokens.peek().kind() == Kind.END) {
        return new Statement.Describe(table.text().toLowerCase(Locale.ROOT));
      }
    }
    List<String> name = dottedName("a table name after " + keyword.upper());
    expectEnd("after " + keyword.upper() + " " + String.join(".", name));
    return new Statement.Describe(name);
  }

  /** Words that start a query DESCRIBE describes ({@code DESCRIBE SELECT ...}). */
  private static final Set<String> QUERY_WORDS = Set.of("SELECT", "WITH", "VALUES", "FROM");

  // ---- ATTACH, DETACH -----------------------------------------------------------------------

  /** {@code ATTACH [DATABASE] 'uri' AS name [(TYPE type, key ['='] value, ...)]}. */
  private Statement attach() {
    tokens.next();
    if (tokens.peek().isWord("DATABASE")) {
      tokens.next();
    }
    String uri = string("a quoted catalog URI or path after ATTACH");
    expectWord("AS", "name after ATTACH '...'");
    String name = name("a catalog name after ATTACH '...' AS");
    String type = null;
    Map<String, String> options = new LinkedHashMap<>();
    if (tokens.peek().isSymbol('(')) {
      tokens.next();
      // Options carry credentials (TOKEN '...', CREDENTIAL '...').
      hideTokens = true;
      while (!tokens.peek().isSymbol(')')) {
        Token k = tokens.next();
        String key;
        if (k.kind() == Kind.WORD || k.kind() == Kind.STRING) {
          StringBuilder dotted = new StringBuilder(k.unquoted());
          while (tokens.peek().isSymbol('.')
              || tokens.peek().isSymbol('-') && tokens.peekSecond().kind() == Kind.WORD) {
            char sep = tokens.next().text().charAt(0);
            dotted.append(sep).append(namePart("an option name after '" + dotted + sep + "'"));
          }
          key = dotted.toString().toLowerCase(Locale.ROOT);
        } else {
          throw expected("an option name (TYPE, WAREHOUSE, TOKEN, ...) in ATTACH's options", k);
        }
        if (tokens.peek().isSymbol('=')) {
          tokens.next();
        }
        Token v = tokens.next();
        if (v.kind() != Kind.STRING && v.kind() != Kind.WORD && v.kind() != Kind.NUMBER) {
          throw expected("a value for option " + key + " of ATTACH", v);
        }
        if (key.equals("type")) {
          type = v.unquoted().toLowerCase(Locale.ROOT);
        } else {
          options.put(key, v.unquoted());
        }
        if (!comma()) {
          break;
        }
      }
      expectSymbol(')', "after ATTACH's options");
      hideTokens = false;
    }
    expectEnd("after ATTACH '...' AS " + name + (options.isEmpty() ? "" : " (options)"));
    return new Statement.Attach(uri, name, type, options);
  }

  /** {@code DETACH [DATABASE] [IF EXISTS] name}. */
  private Statement detach() {
    tokens.next();
    if (tokens.peek().isWord("DATABASE")) {
      tokens.next();
    }
    boolean ifExists = tokens.peek().isWord("IF") && tokens.peekSecond().isWord("EXISTS");
    if (ifExists) {
      tokens.next();
      tokens.next();
    }
    String name = name("a catalog name after DETACH");
    expectEnd("after DETACH " + name);
    return new Statement.Detach(name, ifExists);
  }

  private Statement explain() {
    tokens.next();
    if (tokens.peek().isWord("PLAN")) {
      return other();
    }
    boolean analyze = false;
    if (tokens.peek().isWord("ANALYZE")) {
      tokens.next();
      analyze = true;
    }
    return new Statement.Explain(
        analyze, rest("a query after EXPLAIN" + (analyze ? " ANALYZE" : "")));
  }

  // ---- COPY ---------------------------------------------------------------------------------

  private Statement copy() {
    tokens.next();
    Token t = tokens.peek();
    Statement query;
    if (t.isSymbol('(')) {
      int open = tokens.next().end();
      int close = closingParenthesis(open);
      StatementParser inner = new StatementParser(text, open, close);
      if (inner.tokens.peek().kind() == Kind.END) {
        throw inner.expected("a query in COPY (...)", inner.tokens.peek());
      }
      query = inner.statement(false);
    } else if (t.kind() == Kind.WORD || t.kind() == Kind.QUOTED_NAME) {
      name("a table name after COPY");
      query = new Statement.Other(new Statement.SqlText("SELECT * FROM " + t.text(), 1, 1));
    } else {
      throw expected("(query) or a table name after COPY", t);
    }
    expectWord("TO", "'path' after COPY " + (t.isSymbol('(') ? "(query)" : t.text()));
    String path = string("a quoted path after COPY ... TO");
    Map<String, String> options = new LinkedHashMap<>();
    boolean with = tokens.peek().isWord("WITH");
    if (with) {
      tokens.next();
    }
    if (with || tokens.peek().isSymbol('(')) {
      expectSymbol('(', "for the options of COPY ... TO '" + path + "'");
      copyOptions(options);
    }
    expectEnd("after COPY ... TO '" + path + "'" + (options.isEmpty() ? "" : " (options)"));
    return new Statement.Copy(query, path, Collections.unmodifiableMap(options));
  }

  /** {@code name [value], ...)}: names lower-cased; a missing value is "true". */
  private void copyOptions(Map<String, String> options) {
    while (true) {
      Token k = tokens.peek();
      if (k.isSymbol(')') || k.kind() == Kind.END) {
        break;
      }
      if (k.isSymbol(',')) {
        tokens.next();
        continue;
      }
      tokens.next();
      if (k.kind() != Kind.WORD && k.kind() != Kind.STRING) {
        throw expected("an option name (FORMAT, DELIMITER, HEADER) in COPY's options", k);
      }
      List<Token> value = new ArrayList<>();
      int depth = 0;
      while (true) {
        Token t = tokens.peek();
        if (t.kind() == Kind.END || (depth == 0 && (t.isSymbol(',') || t.isSymbol(')')))) {
          break;
        }
        if (t.isSymbol('(')) {
          depth++;
        } else if (t.isSymbol(')')) {
          depth--;
        }
        value.add(tokens.next());
      }
      options.put(k.unquoted().toLowerCase(Locale.ROOT), value.isEmpty() ? "true" : raw(value));
    }
    expectSymbol(')', "after COPY's options");
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** The rest of the statement, for Calcite: an embedded query. */
  private Statement.SqlText rest(String what) {
    Token t = tokens.peek();
    if (t.kind() == Kind.END) {
      throw expected(what, t);
    }
    return sqlText(t.start());
  }

  /** The whole statement, for Calcite. */
  private Statement other() {
    return new Statement.Other(sqlText(start));
  }

  private Statement.SqlText sqlText(int from) {
    return new Statement.SqlText(
        text.substring(from, end), SqlTokens.line(text, from), SqlTokens.column(text, from));
  }

  /**
   * Consumes up to and including the parenthesis closing the one that ends at {@code open}; returns
   * the closing one's offset.
   */
  private int closingParenthesis(int open) {
    int depth = 1;
    while (true) {
      Token t = tokens.next();
      if (t.kind() == Kind.END) {
        throw tokens.error(open - 1, "this ( has no closing )");
      }
      if (t.isSymbol('(')) {
        depth++;
      } else if (t.isSymbol(')') && --depth == 0) {
        return t.start();
      }
    }
  }

  /** {@code IF NOT EXISTS}; {@code IF} alone is a name ({@code CREATE TABLE if (a INT)}). */
  private boolean ifNotExists() {
    if (!tokens.peek().isWord("IF") || !tokens.peekSecond().isWord("NOT")) {
      return false;
    }
    tokens.next();
    tokens.next();
    expectWord("EXISTS", "after IF NOT");
    return true;
  }

  /** A name as the catalog keys it: unquoted lower-cased, quoted as typed. */
  private String name(String what) {
    Token t = tokens.next();
    if (t.kind() == Kind.WORD) {
      return t.text().toLowerCase(Locale.ROOT);
    }
    if (t.kind() == Kind.QUOTED_NAME && t.text().length() > 2) {
      return t.unquoted();
    }
    throw expected(what, t);
  }

  /** {@code name[.name...]}, each part as {@link #name} reads it. */
  private List<String> dottedName(String what) {
    List<String> parts = new ArrayList<>();
    parts.add(name(what));
    while (tokens.peek().isSymbol('.')) {
      tokens.next();
      parts.add(name("a name after '" + String.join(".", parts) + ".'"));
    }
    return List.copyOf(parts);
  }

  private String string(String what) {
    Token t = tokens.next();
    if (t.kind() != Kind.STRING) {
      throw expected(what, t);
    }
    return t.unquoted();
  }

  private boolean comma() {
    if (tokens.peek().isSymbol(',')) {
      tokens.next();
      return true;
    }
    return false;
  }

  private void expectWord(String word, String context) {
    Token t = tokens.next();
    if (!t.isWord(word)) {
      throw expected(word + " " + context, t);
    }
  }

  private void expectSymbol(char c, String context) {
    Token t = tokens.next();
    if (!t.isSymbol(c)) {
      throw expected("'" + c + "' " + context, t);
    }
  }

  private void expectEnd(String context) {
    while (tokens.peek().isSymbol(';')) {
      tokens.next();
    }
    Token t = tokens.peek();
    if (t.kind() != Kind.END) {
      throw expected("the end of the statement " + context, t);
    }
  }

  private SqlParseException expected(String what, Token found) {
    return tokens.error(
        found.start(),
        "expected " + what + ", found " + (hideTokens ? found.describeKind() : found.describe()));
  }
}
