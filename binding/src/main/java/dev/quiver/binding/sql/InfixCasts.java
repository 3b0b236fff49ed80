package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * PostgreSQL's {@code expr::type} rewritten into {@code CAST(expr AS type)} before parsing. Calcite
 * 1.42's Babel grammar parses {@code ::} but gives it the lowest precedence: {@code a <
 * '1995-06-17'::DATE} became {@code (a < '1995-06-17')::DATE} (fixed upstream after 1.42,
 * CALCITE-7475). In PostgreSQL and DuckDB {@code ::} binds tightest, to the operand just before it:
 * a name ({@code t.a}), a literal, a parenthesized expression or a function call.
 */
final class InfixCasts {
  /** Replace {@code [start, end)} of the text with {@code text}. */
  record Rewrite(int start, int end, String text) {}

  private enum Kind {
    WORD,
    QUOTED_NAME,
    STRING,
    NUMBER,
    PUNCT
  }

  private record Token(Kind kind, int start, int end, String image) {
    boolean is(String s) {
      return image.equals(s);
    }
  }

  /** Words before a parenthesis that are not function names. */
  private static final Set<String> NOT_FUNCTIONS =
      Set.of(
          "and",
          "or",
          "not",
          "in",
          "exists",
          "select",
          "where",
          "from",
          "on",
          "by",
          "when",
          "then",
          "else",
          "as",
          "values",
          "over",
          "having",
          "join",
          "is",
          "like",
          "between",
          "case",
          "any",
          "all",
          "some",
          "union",
          "intersect",
          "except",
          "using",
          "with",
          "lateral",
          "filter",
          "within",
          "return",
          "set",
          "into");

  /**
   * Words that continue a type name ({@code DOUBLE PRECISION}, {@code TIMESTAMP WITH TIME ZONE}).
   */
  private static final Set<String> TYPE_CONTINUATIONS =
      Set.of("precision", "varying", "with", "without", "time", "zone", "local");

  /** Typed literal prefixes: {@code DATE '2024-01-01'::VARCHAR} casts the date. */
  private static final Set<String> LITERAL_TYPES = Set.of("date", "time", "timestamp");

  private InfixCasts() {}

  /** The rewrite of the first {@code ::} of {@code text}, or null when there is none to do. */
  static Rewrite first(CharSequence text) {
    List<Token> tokens = tokenize(text);
    for (int k = 1; k < tokens.size(); k++) {
      if (!tokens.get(k).is("::")) {
        continue;
      }
      int from = operandStart(tokens, k);
      int to = typeEnd(tokens, k);
      if (from < 0 || to < 0) {
        return null; // left as it is: the parser reports it
      }
      int start = tokens.get(from).start();
      int end = tokens.get(to - 1).end();
      String operand = text.subSequence(start, tokens.get(k - 1).end()).toString();
      String type = text.subSequence(tokens.get(k + 1).start(), end).toString();
      return new Rewrite(start, end, "CAST(" + operand + " AS " + type + ")");
    }
    return null;
  }

  /** Index of the first token of the operand before the {@code ::} at {@code k}, or -1. */
  private static int operandStart(List<Token> tokens, int k) {
    int i = k - 1;
    Token t = tokens.get(i);
    if (t.is(")")) {
      int depth = 0;
      for (; i >= 0; i--) {
        if (tokens.get(i).is(")")) {
          depth++;
        } else if (tokens.get(i).is("(")) {
          depth--;
          if (depth == 0) {
            break;
          }
        }
      }
      if (i < 0) {
        return -1;
      }
      if (i > 0
          && (tokens.get(i - 1).kind() == Kind.WORD || tokens.get(i - 1).kind() == Kind.QUOTED_NAME)
          && !NOT_FUNCTIONS.contains(tokens.get(i - 1).image().toLowerCase(Locale.ROOT))) {
        i--; // a function call
      } else {
        return i;
      }
    } else if (t.kind() == Kind.STRING) {
      if (i > 0
          && tokens.get(i - 1).kind() == Kind.WORD
          && LITERAL_TYPES.contains(tokens.get(i - 1).image().toLowerCase(Locale.ROOT))) {
        i--;
      }
      return i;
    } else if (t.kind() == Kind.NUMBER) {
      return i;
    } else if (t.kind() != Kind.WORD && t.kind() != Kind.QUOTED_NAME) {
      return -1;
    }
    // A qualified name: a.b.c
    while (i >= 2
        && tokens.get(i - 1).is(".")
        && (tokens.get(i - 2).kind() == Kind.WORD
            || tokens.get(i - 2).kind() == Kind.QUOTED_NAME)) {
      i -= 2;
    }
    return i;
  }

  /** Index after the last token of the type after the {@code ::} at {@code k}, or -1. */
  private static int typeEnd(List<Token> tokens, int k) {
    int j = k + 1;
    if (j >= tokens.size()
        || (tokens.get(j).kind() != Kind.WORD && tokens.get(j).kind() != Kind.QUOTED_NAME)) {
      return -1;
    }
    j++;
    while (j < tokens.size()
        && tokens.get(j).kind() == Kind.WORD
        && TYPE_CONTINUATIONS.contains(tokens.get(j).image().toLowerCase(Locale.ROOT))) {
      j++;
    }
    if (j < tokens.size() && tokens.get(j).is("(")) {
      int depth = 0;
      for (; j < tokens.size(); j++) {
        if (tokens.get(j).is("(")) {
          depth++;
        } else if (tokens.get(j).is(")") && --depth == 0) {
          break;
        }
      }
      if (j >= tokens.size()) {
        return -1;
      }
      j++;
    }
    return j;
  }

  private static List<Token> tokenize(CharSequence s) {
    List<Token> out = new ArrayList<>();
    int n = s.length();
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      int start = i;
      if (Character.isWhitespace(c)) {
        i++;
        continue;
      }
      if (c == '-' && i + 1 < n && s.charAt(i + 1) == '-') {
        while (i < n && s.charAt(i) != '\n') {
          i++;
        }
        continue;
      }
      if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
        int end = indexOf(s, "*/", i + 2);
        i = end < 0 ? n : end + 2;
        continue;
      }
      Kind kind;
      if (c == '\'' || c == '"') {
        i++;
        while (i < n) {
          if (s.charAt(i) == c) {
            if (i + 1 < n && s.charAt(i + 1) == c) {
              i += 2;
              continue;
            }
            i++;
            break;
          }
          i++;
        }
        kind = c == '\'' ? Kind.STRING : Kind.QUOTED_NAME;
      } else if (Character.isDigit(c)
          || (c == '.' && i + 1 < n && Character.isDigit(s.charAt(i + 1)))) {
        while (i < n && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '.')) {
          i++;
        }
        kind = Kind.NUMBER;
      } else if (Character.isLetter(c) || c == '_') {
        while (i < n
            && (Character.isLetterOrDigit(s.charAt(i))
                || s.charAt(i) == '_'
                || s.charAt(i) == '$')) {
          i++;
        }
        kind = Kind.WORD;
      } else if (c == ':' && i + 1 < n && s.charAt(i + 1) == ':') {
        i += 2;
        kind = Kind.PUNCT;
      } else {
        i++;
        kind = Kind.PUNCT;
      }
      out.add(new Token(kind, start, i, s.subSequence(start, i).toString()));
    }
    return out;
  }

  private static int indexOf(CharSequence s, String what, int from) {
    for (int i = from; i + what.length() <= s.length(); i++) {
      boolean match = true;
      for (int j = 0; j < what.length() && match; j++) {
        match = s.charAt(i + j) == what.charAt(j);
      }
      if (match) {
        return i;
      }
    }
    return -1;
  }
}
