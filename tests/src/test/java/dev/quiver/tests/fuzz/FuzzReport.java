package dev.quiver.tests.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** What a fuzzing run saw: counts of every outcome, and each finding in full. */
final class FuzzReport {
  /** A problem to triage: what happened, the query and how to run it again. */
  record Finding(
      String kind, String label, String repro, String sql, String detail, String reduced) {
    Finding(String kind, String label, String repro, String sql, String detail) {
      this(kind, label, repro, sql, detail, null);
    }

    Finding withReduced(String query) {
      return new Finding(kind, label, repro, sql, detail, query);
    }

    String text() {
      return "=== "
          + kind
          + ": "
          + label
          + "\n"
          + detail
          + "\nquery:\n"
          + sql
          + (reduced == null ? "" : "\nreduced (fails the same way):\n" + reduced)
          + "\nrerun: "
          + repro
          + "\n";
    }
  }

  private static final Pattern DIGITS = Pattern.compile("\\d+");
  private static final Pattern QUOTED = Pattern.compile("'[^']*'|\"[^\"]*\"");
  private static final int SHOWN_FINDINGS = 20;

  private final String title;
  private final long started = System.nanoTime();
  int queries;
  int passed;
  int metamorphicChecks;
  // What the engines counted (e.g. distributed jobs).
  String engineStats = "";
  // Time spent in each engine, to see where a run goes.
  final Map<String, Long> engineMillis = new TreeMap<>();
  private final Map<String, Integer> shapes = new TreeMap<>();
  private final Map<String, Integer> bothErrors = new TreeMap<>();
  private final Map<String, Integer> referenceOnlyErrors = new TreeMap<>();
  private final Map<String, Integer> unsupported = new TreeMap<>();
  private final Map<String, Integer> plannerFailures = new TreeMap<>();
  private final Map<String, Integer> evaluationOrder = new TreeMap<>();
  private final Map<String, Integer> findingKinds = new TreeMap<>();
  private final List<Finding> findings = new ArrayList<>();
  // The first query of each counted error kind, to triage them.
  private final Map<String, String> examples = new TreeMap<>();
  // The slowest queries: label and milliseconds.
  private final TreeMap<Long, String> slowest = new TreeMap<>();

  FuzzReport(String title) {
    this.title = title;
  }

  void shape(String shape) {
    shapes.merge(shape, 1, Integer::sum);
  }

  void bothError(String message, String sql) {
    count(bothErrors, key(message), sql);
  }

  void referenceOnlyError(String message, String sql) {
    count(referenceOnlyErrors, key(message), sql);
  }

  void unsupported(String feature, String sql) {
    count(unsupported, feature, sql);
  }

  /** Quiver failed to plan a valid query inside Calcite (typed, not a wrong answer). */
  void plannerFailure(String message, String sql) {
    count(plannerFailures, key(message), sql);
  }

  /**
   * One engine failed on an overflowing cast that the other never evaluated (it filtered the row
   * first, or folded the constant later): SQL leaves the order of evaluation open.
   */
  void evaluationOrder(String message, String sql) {
    count(evaluationOrder, key(message), sql);
  }

  int evaluationOrderCount() {
    return evaluationOrder.values().stream().mapToInt(Integer::intValue).sum();
  }

  int plannerFailureCount() {
    return plannerFailures.values().stream().mapToInt(Integer::intValue).sum();
  }

  private void count(Map<String, Integer> counts, String key, String sql) {
    counts.merge(key, 1, Integer::sum);
    examples.putIfAbsent(key, sql);
  }

  /** Records how long query {@code label} took (both engines and its checks). */
  void took(String label, long millis) {
    slowest.put(millis * 1_000_000L + slowest.size(), label);
    if (slowest.size() > 5) {
      slowest.pollFirstEntry();
    }
  }

  void finding(Finding f) {
    findings.add(f);
    findingKinds.merge(f.kind(), 1, Integer::sum);
  }

  void replaceFinding(Finding old, Finding reduced) {
    findings.set(findings.indexOf(old), reduced);
  }

  List<Finding> findings() {
    return findings;
  }

  int bothErrorCount() {
    return bothErrors.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** An error message with numbers and quoted names blanked, to count errors by kind. */
  static String key(String message) {
    String first = message == null ? "null" : message.strip().lines().findFirst().orElse("");
    String k = DIGITS.matcher(QUOTED.matcher(first).replaceAll("'…'")).replaceAll("#");
    return k.length() > 140 ? k.substring(0, 140) + "…" : k;
  }

  /** Counts and the first findings, for the test log. */
  String summary() {
    StringBuilder sb = new StringBuilder();
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;
    sb.append("fuzz ")
        .append(title)
        .append(": ")
        .append(queries)
        .append(" queries in ")
        .append(seconds)
        .append(" s; ")
        .append(passed)
        .append(" agreed, ")
        .append(metamorphicChecks)
        .append(" metamorphic checks, ")
        .append(bothErrorCount())
        .append(" both engines failed, ")
        .append(referenceOnlyErrors.values().stream().mapToInt(Integer::intValue).sum())
        .append(" only the reference failed, ")
        .append(unsupported.values().stream().mapToInt(Integer::intValue).sum())
        .append(" unsupported, ")
        .append(plannerFailureCount())
        .append(" planner failures, ")
        .append(evaluationOrderCount())
        .append(" overflows in one engine only, ")
        .append(findings.size())
        .append(" findings ")
        .append(findingKinds)
        .append("\n  shapes: ")
        .append(shapes)
        .append("\n  engine time (ms): ")
        .append(engineMillis)
        .append(engineStats.isEmpty() ? "" : "\n  " + engineStats);
    appendCounts(sb, "both engines failed", bothErrors);
    appendCounts(sb, "only the reference failed", referenceOnlyErrors);
    appendCounts(sb, "unsupported by Quiver", unsupported);
    appendCounts(
        sb,
        "planner failures (Calcite's decorrelator; valid SQL Quiver cannot plan yet)",
        plannerFailures);
    appendCounts(sb, "overflow in one engine only (evaluation order)", evaluationOrder);
    sb.append("\n  slowest:");
    slowest
        .descendingMap()
        .forEach((k, v) -> sb.append("\n    ").append(k / 1_000_000L).append(" ms ").append(v));
    for (int i = 0; i < Math.min(SHOWN_FINDINGS, findings.size()); i++) {
      sb.append('\n').append(findings.get(i).text());
    }
    if (findings.size() > SHOWN_FINDINGS) {
      sb.append("\n... ").append(findings.size() - SHOWN_FINDINGS).append(" more findings");
    }
    return sb.toString();
  }

  private static void appendCounts(StringBuilder sb, String label, Map<String, Integer> counts) {
    if (!counts.isEmpty()) {
      sb.append("\n  ").append(label).append(':');
      counts.entrySet().stream()
          .sorted((a, b) -> b.getValue() - a.getValue())
          .forEach(e -> sb.append("\n    ").append(e.getValue()).append(" x ").append(e.getKey()));
    }
  }

  /** Writes the summary and every finding to {@code file}. */
  void write(Path file) {
    StringBuilder sb = new StringBuilder(summary()).append("\n\nan example of each error:\n");
    examples.forEach((k, v) -> sb.append(k).append("\n  ").append(v).append('\n'));
    sb.append("\nall findings:\n");
    findings.forEach(f -> sb.append('\n').append(f.text()));
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, sb, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
