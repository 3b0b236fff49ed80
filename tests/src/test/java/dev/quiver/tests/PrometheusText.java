package dev.quiver.tests;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Samples parsed back from the Prometheus text exposition format (version 0.0.4): one value per
 * metric name and label set. Comments ({@code # HELP}, {@code # TYPE}) are checked for shape.
 */
final class PrometheusText {
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)(\\s+\\d+)?$");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** A metric name and its labels, sorted by label name. */
  record Key(String name, Map<String, String> labels) {}

  private final Map<Key, Double> samples = new LinkedHashMap<>();

  private PrometheusText() {}

  /** Parses {@code text}; fails on any line that is neither a comment nor a sample. */
  static PrometheusText parse(String text) {
    PrometheusText out = new PrometheusText();
    for (String line : text.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      if (line.startsWith("#")) {
        if (!line.startsWith("# HELP ")
            && !line.startsWith("# TYPE ")
            && !line.startsWith("# UNIT ")
            && !line.startsWith("# EOF")) {
          throw new AssertionError("unexpected comment in Prometheus text: " + line);
        }
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        throw new AssertionError("not a Prometheus sample line: " + line);
      }
      Map<String, String> labels = new TreeMap<>();
      if (m.group(3) != null) {
        Matcher l = LABEL.matcher(m.group(3));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      out.samples.put(new Key(m.group(1), labels), parseValue(m.group(4)));
    }
    return out;
  }

  private static double parseValue(String v) {
    return switch (v) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(v);
    };
  }

  /** The sample with {@code name} and exactly these labels (pairs of name, value), or 0. */
  double value(String name, String... labelPairs) {
    Map<String, String> labels = new TreeMap<>();
    for (int i = 0; i < labelPairs.length; i += 2) {
      labels.put(labelPairs[i], labelPairs[i + 1]);
    }
    return samples.getOrDefault(new Key(name, labels), 0.0);
  }

  /** Whether any sample of metric {@code name} exists. */
  boolean has(String name) {
    return samples.keySet().stream().anyMatch(k -> k.name().equals(name));
  }

  /** Every sample, for messages. */
  Map<Key, Double> samples() {
    return samples;
  }
}
