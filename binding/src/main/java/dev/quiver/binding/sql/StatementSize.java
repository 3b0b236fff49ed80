package dev.quiver.binding.sql;

import dev.quiver.binding.errors.StatementTooLargeException;
import dev.quiver.binding.settings.BindingSettings;

/**
 * The bound on SQL text, {@code quiver.sql.max_statement_bytes}: checked before anything parses the
 * text, because the parser's trees take many times the text's size in heap.
 */
public final class StatementSize {
  private StatementSize() {}

  /**
   * Refuses {@code sql} when its UTF-8 form is longer than {@code maxBytes}.
   *
   * @throws StatementTooLargeException naming both sizes and the setting
   */
  public static void check(String sql, long maxBytes) {
    if (sql == null || (long) sql.length() * 3 <= maxBytes) {
      return; // no char takes more than 3 UTF-8 bytes (a surrogate pair takes 4 for 2 chars)
    }
    long bytes = sql.length() > maxBytes ? sql.length() : utf8Length(sql);
    if (bytes > maxBytes) {
      throw new StatementTooLargeException(
          "Statement too large: "
              + (sql.length() > maxBytes ? "at least " : "")
              + bytes
              + " bytes of SQL text, more than "
              + BindingSettings.MAX_STATEMENT_BYTES.key()
              + " ("
              + maxBytes
              + " bytes); split the work into smaller statements, load long value lists as a"
              + " table (e.g. read_csv) instead of literals, or raise the setting");
    }
  }

  private static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n++;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }
}
