package dev.quiver.binding.sql;

import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.parser.babel.ParseException;
import org.apache.calcite.sql.parser.babel.Token;

/**
 * Parses statements the way DuckDB and PostgreSQL users write them. Calcite's Babel parser (its
 * lenient grammar) accepts most everyday words as names ({@code AS year}, {@code count}, {@code
 * rank}, {@code value}, ...); the few it still reserves ({@code date}, {@code next}) are
 * double-quoted where, and only where, the parser fails on them, and the parse is retried. Error
 * positions are reported in the caller's text. {@code GROUP BY ALL} is marked for {@link
 * GroupByAll}; interval literals with their unit in the string ({@link Intervals}) and {@code
 * expr::type} casts ({@link InfixCasts}) are rewritten into forms Calcite parses right.
 */
final class LenientParser {
  /**
   * Words that, where the parser rejects them, are meant as names. Only a word at which parsing
   * failed is quoted, so keywords keep their meaning wherever the grammar accepts them ({@code
   * CAST(x AS DATE)}, {@code DATE '2024-01-01'}, {@code FETCH NEXT 3 ROWS ONLY}).
   */
  static final Set<String> NAME_WORDS =
      Set.of(
          "year",
          "quarter",
          "month",
          "week",
          "day",
          "hour",
          "minute",
          "second",
          "date",
          "time",
          "timestamp",
          "count",
          "rank",
          "position",
          "user",
          "prev",
          "next",
          "value",
          "first",
          "last",
          "running",
          "at",
          "key",
          "type",
          "name",
          "language");

  /** Bound on {@code ::} casts rewritten; each rewrite removes one. */
  private static final int MAX_CASTS = 10_000;

  /** Bound on retries: each one quotes one more word. */
  private static final int MAX_QUOTED = 100;

  /** The quoted name standing for {@code ALL} in {@code GROUP BY ALL}; as long as "ALL". */
  static final String GROUP_BY_ALL_MARK = "\"*\"";

  private LenientParser() {}

  /** Parses one statement with {@code config}; throws Calcite's error with original positions. */
  static SqlNode parse(String sql, SqlParser.Config config) throws SqlParseException {
    Text text = new Text(markGroupByAll(sql));
    Intervals.rewrite(text.original, text::replace);
    FromFiles.Rewrite file;
    for (int files = 0;
        files < MAX_CASTS && (file = FromFiles.first(text.current)) != null;
        files++) {
      text.replace(file.start(), file.end(), file.text());
    }
    TimeTravel.Rewrite travel;
    for (int times = 0;
        times < MAX_CASTS && (travel = TimeTravel.first(text.current)) != null;
        times++) {
      text.replace(travel.start(), travel.end(), travel.text());
    }
    DateDiffCalls.Rewrite dateDiff;
    for (int calls = 0;
        calls < MAX_CASTS && (dateDiff = DateDiffCalls.first(text.current)) != null;
        calls++) {
      text.replace(dateDiff.start(), dateDiff.end(), dateDiff.text());
    }
    InfixCasts.Rewrite cast;
    for (int casts = 0;
        casts < MAX_CASTS && (cast = InfixCasts.first(text.current)) != null;
        casts++) {
      text.replace(cast.start(), cast.end(), cast.text());
    }
    int where = whereWithoutFrom(text.current);
    if (where >= 0) {
      text.replace(where, where + "WHERE".length(), DUAL_FROM + "WHERE");
    }
    for (int quoted = 0; ; quoted++) {
      try {
        return NegativeZeros.restore(
            SqlParser.create(text.current.toString(), config).parseStmt(), text.current);
      } catch (SqlParseException e) {
        int at = quoted < MAX_QUOTED ? nameWordAt(e, text.current) : -1;
        if (at < 0) {
          throw text.inOriginal(atFailingToken(e));
        }
        text.quote(at);
      }
    }
  }

  /**
   * The offset in {@code text} of the {@link #NAME_WORDS} word at which parsing stopped, or -1: one
   * of the first three tokens from where the parser reports the error (the token after the last one
   * it accepted).
   */
  private static int nameWordAt(SqlParseException e, CharSequence text) {
    int offset = -1;
    if (e.getCause() instanceof ParseException pe
        && pe.currentToken != null
        && pe.currentToken.next != null) {
      Token t = pe.currentToken.next;
      offset = offsetOf(text, t.beginLine, t.beginColumn);
    } else if (e.getPos() != null && e.getPos().getLineNum() > 0) {
      offset = offsetOf(text, e.getPos().getLineNum(), e.getPos().getColumnNum());
    }
    if (offset < 0) {
      return -1;
    }
    int i = offset;
    int n = text.length();
    for (int token = 0; token < 3 && i < n; token++) {
      while (i < n && Character.isWhitespace(text.charAt(i))) {
        i++;
      }
      if (i >= n) {
        return -1;
      }
      char c = text.charAt(i);
      if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
        String word = text.subSequence(start, i).toString().toLowerCase(Locale.ROOT);
        if (NAME_WORDS.contains(word)) {
          return start;
        }
      } else if (c == '\'' || c == '"') {
        return -1;
      } else {
        i++;
      }
    }
    return -1;
  }

  /**
   * {@code e} positioned at the token that failed. The parser reports the first of the tokens it
   * looked ahead at: {@code Encountered ", from"} at the comma of {@code SELECT a,\n FROM t}, where
   * PostgreSQL and DuckDB point at FROM. Punctuation that a look-ahead got past is skipped; a word
   * is where the error stands ({@code WHERE AND 1} is at AND).
   */
  private static SqlParseException atFailingToken(SqlParseException e) {
    if (!(e.getCause() instanceof ParseException pe)
        || pe.currentToken == null
        || pe.currentToken.next == null
        || e.getExpectedTokenSequences() == null) {
      return e;
    }
    if (pe.currentToken.image != null
        && OPERATOR_WORDS.contains(pe.currentToken.image.toUpperCase(Locale.ROOT))
        && pe.currentToken.beginLine > 0) {
      // Babel takes AND / OR as names where nothing else fits (WHERE AND 1 fails at 1); the
      // mistake is the operator, as PostgreSQL and DuckDB report.
      Token t = pe.currentToken;
      String images = t.image + (t.next == null || t.next.kind == 0 ? "" : " " + t.next.image);
      return new SqlParseException(
          "Encountered \"" + images + "\"",
          new SqlParserPos(t.beginLine, t.beginColumn),
          e.getExpectedTokenSequences(),
          e.getTokenImages(),
          e.getCause());
    }
    int lookahead = 1;
    for (int[] sequence : e.getExpectedTokenSequences()) {
      lookahead = Math.max(lookahead, sequence.length);
    }
    Token t = pe.currentToken.next;
    for (int i = 1; i < lookahead && isPunctuation(t) && t.next != null && t.next.kind != 0; i++) {
      t = t.next;
    }
    return at(e, t);
  }

  /** Operators the lenient grammar would take as names; never meant as names. */
  private static final Set<String> OPERATOR_WORDS = Set.of("AND", "OR");

  private static SqlParseException at(SqlParseException e, Token t) {
    if (t.beginLine <= 0 || t.beginColumn <= 0) {
      return e;
    }
    return new SqlParseException(
        e.getMessage(),
        new SqlParserPos(t.beginLine, t.beginColumn),
        e.getExpectedTokenSequences(),
        e.getTokenImages(),
        e.getCause());
  }

  private static boolean isPunctuation(Token t) {
    return t.kind != 0
        && t.image != null
        && !t.image.isEmpty()
        && !Character.isLetterOrDigit(t.image.charAt(0))
        && t.image.charAt(0) != '\''
        && t.image.charAt(0) != '"'
        && t.image.charAt(0) != '_';
  }

  /** Offset of 1-based {@code line}/{@code column} in {@code text}, or -1. */
  static int offsetOf(CharSequence text, int line, int column) {
    int offset = 0;
    for (int l = 1; l < line; l++) {
      while (offset < text.length() && text.charAt(offset) != '\n') {
        offset++;
      }
      if (offset >= text.length()) {
        return -1;
      }
      offset++;
    }
    offset += column - 1;
    return offset <= text.length() ? offset : -1;
  }

  /**
   * Replaces {@code ALL} of {@code GROUP BY ALL} and {@code ORDER BY ALL} (outside literals, quoted
   * names and comments) with {@link #GROUP_BY_ALL_MARK}, which parses as a name of the same length.
   */
  static String markGroupByAll(String sql) {
    StringBuilder out = new StringBuilder(sql);
    String[] last = new String[2]; // the previous word and the one before it
    scan(
        sql,
        (word, start, end) -> {
          if (word.equals("all")
              && "by".equals(last[0])
              && ("group".equals(last[1]) || "order".equals(last[1]))) {
            out.replace(start, end, GROUP_BY_ALL_MARK);
          }
          last[1] = last[0];
          last[0] = word;
          return false;
        },
        (symbol, at) -> {
          if (!Character.isWhitespace(symbol)) {
            last[1] = last[0];
            last[0] = null;
          }
        });
    return out.toString();
  }

  /** A one-row FROM for {@code SELECT items WHERE condition} without FROM (DuckDB, PostgreSQL). */
  static final String DUAL_FROM = "FROM (VALUES (0)) AS \"$dual\"(\"$x\") ";

  /**
   * The offset of the first {@code WHERE} (outside literals, quoted names and comments) of a SELECT
   * without FROM at the same parenthesis depth, or -1: Calcite's grammar takes WHERE only after
   * FROM.
   */
  static int whereWithoutFrom(CharSequence text) {
    int[] state = new int[64]; // per depth: 0 nothing, 1 SELECT without FROM yet, 2 FROM seen
    int[] depth = new int[1];
    return scan(
        text.toString(),
        (word, start, end) -> {
          int d = depth[0];
          if (word.equals("select")) {
            state[d] = 1;
          } else if (word.equals("from") && state[d] == 1) {
            state[d] = 2;
          }
          return word.equals("where") && state[d] == 1;
        },
        (symbol, at) -> {
          if (symbol == '(' && depth[0] < state.length - 1) {
            state[++depth[0]] = 0;
          } else if (symbol == ')' && depth[0] > 0) {
            depth[0]--;
          }
        });
  }

  /** Receives a word (lower case) of {@link #scan}; returns whether the scan stops there. */
  private interface Words {
    boolean word(String lower, int start, int end);
  }

  /** Receives a character outside words, literals, quoted names and comments. */
  private interface Symbols {
    void symbol(char c, int at);
  }

  /**
   * Walks {@code sql}'s words and other characters, skipping literals, quoted names (each like a
   * symbol) and comments; returns the start of the word at which {@code words} stopped, or -1.
   */
  private static int scan(String sql, Words words, Symbols symbols) {
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"') {
        int end = sql.indexOf(c, i + 1);
        while (end >= 0 && end + 1 < n && sql.charAt(end + 1) == c) {
          end = sql.indexOf(c, end + 2);
        }
        symbols.symbol(c, i);
        i = end < 0 ? n : end + 1;
      } else if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < n
            && (Character.isLetterOrDigit(sql.charAt(i))
                || sql.charAt(i) == '_'
                || sql.charAt(i) == '$')) {
          i++;
        }
        if (words.word(sql.substring(start, i).toLowerCase(Locale.ROOT), start, i)) {
          return start;
        }
      } else {
        symbols.symbol(c, i);
        i++;
      }
    }
    return -1;
  }

  /** The text being parsed, with where each of its characters stood in the caller's text. */
  private static final class Text {
    final String original;
    final StringBuilder current;

    /** Offset in {@link #original} of each character of {@link #current}; -1 if inserted. */
    int[] origin;

    /** Whether {@link #current} differs from {@link #original}. */
    boolean edited;

    Text(String original) {
      this.original = original;
      this.current = new StringBuilder(original);
      this.origin = new int[original.length()];
      for (int i = 0; i < origin.length; i++) {
        origin[i] = i;
      }
    }

    /**
     * Replaces {@code current[start, end)} with {@code replacement}; its characters stand for the
     * first replaced one.
     */
    void replace(int start, int end, String replacement) {
      edited = true;
      current.replace(start, end, replacement);
      int[] next = new int[origin.length - (end - start) + replacement.length()];
      System.arraycopy(origin, 0, next, 0, start);
      for (int i = 0; i < replacement.length(); i++) {
        next[start + i] = i == 0 ? origin[start] : -1;
      }
      System.arraycopy(origin, end, next, start + replacement.length(), origin.length - end);
      origin = next;
    }

    /** Double-quotes the word at {@code offset}, lower-cased as an unquoted name would be. */
    void quote(int offset) {
      int end = offset;
      while (end < current.length()
          && (Character.isLetterOrDigit(current.charAt(end)) || current.charAt(end) == '_')) {
        end++;
      }
      String word = current.substring(offset, end).toLowerCase(Locale.ROOT);
      edited = true;
      current.replace(offset, end, "\"" + word + "\"");
      int[] next = new int[origin.length + 2];
      System.arraycopy(origin, 0, next, 0, offset);
      next[offset] = -1;
      System.arraycopy(origin, offset, next, offset + 1, end - offset);
      next[end + 1] = -1;
      System.arraycopy(origin, end, next, end + 2, origin.length - end);
      origin = next;
    }

    /** {@code e} with its position moved from the quoted text back into the caller's. */
    SqlParseException inOriginal(SqlParseException e) {
      SqlParserPos pos = e.getPos();
      if (pos == null || !edited) {
        return e;
      }
      int offset = offsetOf(current, pos.getLineNum(), pos.getColumnNum());
      if (offset < 0) {
        return e;
      }
      int o = -1;
      for (int i = offset; i < origin.length && o < 0; i++) {
        o = origin[i];
      }
      if (o < 0) {
        o = original.length();
      }
      int line = 1;
      int column = 1;
      for (int i = 0; i < o; i++) {
        if (original.charAt(i) == '\n') {
          line++;
          column = 1;
        } else {
          column++;
        }
      }
      return new SqlParseException(
          e.getMessage(),
          new SqlParserPos(line, column),
          e.getExpectedTokenSequences(),
          e.getTokenImages(),
          e.getCause());
    }
  }
}
