package dev.quiver.tests;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQL corpus resource: named queries, each introduced by {@code -- name: X} and ending in ';'.
 */
final class SqlCorpus {
  /** One corpus query. */
  record Entry(String name, String sql) {}

  private SqlCorpus() {}

  /** Loads the entries of resource {@code resource}, in file order. */
  static List<Entry> load(String resource) {
    String text;
    try (InputStream in = SqlCorpus.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("Missing resource " + resource);
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Entry> entries = new ArrayList<>();
    String name = null;
    StringBuilder sql = new StringBuilder();
    for (String line : text.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.startsWith("-- name:")) {
        if (name != null) {
          throw new IllegalStateException("Corpus entry " + name + " does not end with ';'");
        }
        name = trimmed.substring("-- name:".length()).strip();
        sql.setLength(0);
      } else if (name != null && !trimmed.isEmpty()) {
        sql.append(line).append('\n');
        if (trimmed.endsWith(";")) {
          String q = sql.toString().strip();
          entries.add(new Entry(name, q.substring(0, q.length() - 1).strip()));
          name = null;
        }
      }
    }
    if (name != null) {
      throw new IllegalStateException("Corpus entry " + name + " does not end with ';'");
    }
    return entries;
  }
}
