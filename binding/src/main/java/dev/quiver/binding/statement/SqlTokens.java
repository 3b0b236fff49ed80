package dev.quiver.binding.statement;

import dev.quiver.binding.errors.SqlParseException;
import java.util.Locale;

/**
 * A lazy scanner over SQL text: words, double-quoted names, string literals, numbers and single
 * punctuation characters, skipping whitespace and {@code --} and {@code /* *}{@code /} comments.
 * Each token keeps its offsets, so a statement can hand the exact text of an embedded query, with
 * its line and column, to Calcite's parser.
 */
final class SqlTokens {
  /** What a token is. */
  enum Kind {
    /** A keyword or unquoted name: a letter or {@code _}, then letters, digits, _ or $. */
    WORD,
    /** A {@code "double-quoted"} name; {@code ""} stands for one quote. */
    QUOTED_NAME,
    /** A {@code 'string'} literal; {@code ''} stands for one quote. */
    STRING,
    /** A number (digits, with any letters, digits and dots that follow). */
    NUMBER,
    /** Any other single character, such as {@code (}, {@code )}, {@code ,} or {@code =}. */
    SYMBOL,
    /** The end of the text. */
    END
  }

  /** One token: its kind and its offsets {@code [start, end)} in the text. */
  record Token(Kind kind, String text, int start, int end) {
    /** Whether this is the word {@code word} (case-insensitive). */
    boolean isWord(String word) {
      return kind == Kind.WORD && text.equalsIgnoreCase(word);
    }

    /** Whether this is the punctuation character {@code c}. */
    boolean isSymbol(char c) {
      return kind == Kind.SYMBOL && text.charAt(0) == c;
    }

    /** The value of a string literal or quoted name, its doubled quotes undone. */
    String unquoted() {
      if (kind != Kind.STRING && kind != Kind.QUOTED_NAME) {
        return text;
      }
      String q = text.substring(0, 1);
      return text.substring(1, text.length() - 1).replace(q + q, q);
    }

    /** How an error message shows this token. */
    String describe() {
      return kind == Kind.END ? "the end of the statement" : "'" + text + "'";
    }

    /**
     * How an error message shows this token without its text: for tokens that may be a secret's
     * value (SET quiver.s3.secret_access_key 'k' without its =).
     */
    String describeKind() {
      return switch (kind) {
        case WORD -> "a word";
        case QUOTED_NAME -> "a quoted name";
        case STRING -> "a string literal";
        case NUMBER -> "a number";
        case SYMBOL -> "a symbol";
        case END -> "the end of the statement";
      };
    }

    /** The word in upper case, for dispatch; other tokens as they are. */
    String upper() {
      return text.toUpperCase(Locale.ROOT);
    }
  }

  private final String text;
  private final int end;
  private int at;
  private Token peeked;
  private Token second;

  /** A scanner over {@code text[start, end)}. */
  SqlTokens(String text, int start, int end) {
    this.text = text;
    this.at = start;
    this.end = end;
  }

  /** The text being scanned. */
  String text() {
    return text;
  }

  /** The next token without consuming it. */
  Token peek() {
    if (peeked == null) {
      peeked = scan();
    }
    return peeked;
  }

  /** The token after the next one, without consuming either. */
  Token peekSecond() {
    peek();
    if (second == null) {
      second = scan();
    }
    return second;
  }

  /** Consumes and returns the next token. */
  Token next() {
    Token t = peek();
    peeked = second;
    second = null;
    return t;
  }

  /** The offset of the next token (after whitespace and comments). */
  int position() {
    return peek().start();
  }

  private Token scan() {
    skipBlanks();
    if (at >= end) {
      return new Token(Kind.END, "", end, end);
    }
    int start = at;
    char c = text.charAt(at);
    if (c == '\'' || c == '"') {
      at = endOfQuoted(start);
      return new Token(
          c == '\'' ? Kind.STRING : Kind.QUOTED_NAME, text.substring(start, at), start, at);
    }
    if (Character.isLetter(c) || c == '_') {
      while (at < end
          && (Character.isLetterOrDigit(text.charAt(at))
              || text.charAt(at) == '_'
              || text.charAt(at) == '$')) {
        at++;
      }
      return new Token(Kind.WORD, text.substring(start, at), start, at);
    }
    if (Character.isDigit(c)) {
      while (at < end
          && (Character.isLetterOrDigit(text.charAt(at))
              || text.charAt(at) == '.'
              || text.charAt(at) == '_')) {
        at++;
      }
      return new Token(Kind.NUMBER, text.substring(start, at), start, at);
    }
    at++;
    return new Token(Kind.SYMBOL, text.substring(start, at), start, at);
  }

  private void skipBlanks() {
    while (at < end) {
      if (Character.isWhitespace(text.charAt(at))) {
        at++;
      } else if (text.startsWith("--", at)) {
        int nl = text.indexOf('\n', at);
        at = nl < 0 || nl > end ? end : nl + 1;
      } else if (text.startsWith("/*", at)) {
        int close = text.indexOf("*/", at + 2);
        if (close < 0 || close + 2 > end) {
          throw error(at, "unterminated comment: /* without */");
        }
        at = close + 2;
      } else {
        return;
      }
    }
  }

  /** The offset after the closing quote of the literal or name opening at {@code open}. */
  private int endOfQuoted(int open) {
    char q = text.charAt(open);
    int i = open + 1;
    while (i < end) {
      if (text.charAt(i) == q) {
        if (i + 1 < end && text.charAt(i + 1) == q) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    throw error(
        open,
        q == '\''
            ? "unterminated string literal: ' without its closing '"
            : "unterminated quoted name: \" without its closing \"");
  }

  /** A parse error at {@code offset} of the text. */
  SqlParseException error(int offset, String message) {
    return new SqlParseException(
        "SQL parse error: " + message, line(text, offset), column(text, offset), null);
  }

  /** The 1-based line of {@code offset} in {@code text}. */
  static int line(String text, int offset) {
    int line = 1;
    for (int i = 0; i < offset && i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }

  /** The 1-based column of {@code offset} in {@code text}. */
  static int column(String text, int offset) {
    int nl = text.lastIndexOf('\n', offset - 1);
    return offset - nl;
  }
}
