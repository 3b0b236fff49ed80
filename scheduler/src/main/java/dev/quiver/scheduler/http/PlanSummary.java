package dev.quiver.scheduler.http;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a stage does in a few words, read from its plan text (one operator a line, {@code Name
 * table=t: details [partitions=n]}): its operators, root first, without the {@code Exec} suffix,
 * and the tables it scans.
 *
 * @param operators operator names, root first, repeats of the same operator in a row merged
 * @param tables the tables its scans read, in plan order
 */
record PlanSummary(List<String> operators, List<String> tables) {
  private static final Pattern TABLE = Pattern.compile("\\btable=([^\\s:,\\]]+)");

  static PlanSummary of(String planText) {
    List<String> operators = new ArrayList<>();
    Set<String> tables = new LinkedHashSet<>();
    for (String line : planText.split("\n")) {
      String op = line.strip();
      if (op.isEmpty()) {
        continue;
      }
      int end = 0;
      while (end < op.length() && Character.isJavaIdentifierPart(op.charAt(end))) {
        end++;
      }
      String name = op.substring(0, end);
      if (name.endsWith("Exec")) {
        name = name.substring(0, name.length() - "Exec".length());
      }
      if (!name.isEmpty()
          && (operators.isEmpty() || !operators.get(operators.size() - 1).equals(name))) {
        operators.add(name);
      }
      Matcher m = TABLE.matcher(op);
      if (m.find()) {
        tables.add(m.group(1));
      }
    }
    return new PlanSummary(List.copyOf(operators), List.copyOf(tables));
  }

  /** The operators as one line, data flowing right to left as in the plan ("Sort ← Scan"). */
  String operatorLine() {
    return String.join(" ← ", operators);
  }
}
