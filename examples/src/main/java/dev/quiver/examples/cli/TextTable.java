package dev.quiver.examples.cli;

import java.util.List;

/** A small boxed text table for the shell's own listings (\d). */
final class TextTable {
  private TextTable() {}

  static String render(List<String> header, List<List<String>> rows) {
    int[] widths = new int[header.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = header.get(c).length();
      for (List<String> r : rows) {
        widths[c] = Math.max(widths[c], r.get(c).length());
      }
    }
    StringBuilder rule = new StringBuilder("+");
    for (int w : widths) {
      rule.append("-".repeat(w + 2)).append('+');
    }
    rule.append('\n');
    StringBuilder out = new StringBuilder(rule);
    line(out, header, widths);
    out.append(rule);
    for (List<String> r : rows) {
      line(out, r, widths);
    }
    if (!rows.isEmpty()) {
      out.append(rule);
    }
    return out.toString();
  }

  private static void line(StringBuilder out, List<String> cells, int[] widths) {
    out.append('|');
    for (int c = 0; c < widths.length; c++) {
      out.append(' ').append(cells.get(c)).append(" ".repeat(widths[c] - cells.get(c).length()));
      out.append(" |");
    }
    out.append('\n');
  }
}
