package dev.quiver.examples.cli;

import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.statement.StatementParser;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The line the table format prints for a statement that is not a query, as psql does: what ran and
 * how many rows it wrote ({@code CREATE TABLE}, {@code INSERT 3}, {@code SET}), instead of a bare
 * {@code count} table that is hard to match to its statement in a script's output.
 */
final class StatementTags {
  private StatementTags() {}

  /** What CREATE, DROP and ALTER act on: the tag names it ({@code DROP VIEW}). */
  private static final Set<String> OBJECTS =
      Set.of(
          "TABLE", "VIEW", "SCHEMA", "FUNCTION", "INDEX", "MACRO", "SECRET", "SESSION", "SYSTEM");

  private static final Pattern WORD = Pattern.compile("[A-Za-z_]+");

  /** The tag of {@code sql}, whose result is {@code result} (empty or a one-row count). */
  static String tag(String sql, DataFrame result) {
    String first = StatementParser.leadingWord(sql);
    String tag = first;
    if (first.equals("CREATE") || first.equals("DROP") || first.equals("ALTER")) {
      Matcher m = WORD.matcher(sql);
      m.region(StatementParser.leadingWordStart(sql) + first.length(), sql.length());
      for (int i = 0; i < 5 && m.find(); i++) {
        String w = m.group().toUpperCase(Locale.ROOT);
        if (OBJECTS.contains(w)) {
          tag = first + " " + w;
          break;
        }
      }
    }
    Long count = count(result);
    return count == null ? tag : tag + " " + count;
  }

  /** The count of a one-row {@code count} result; null for any other result. */
  private static Long count(DataFrame result) {
    List<Field> fields = result.schema().getFields();
    if (fields.size() != 1 || !fields.get(0).getName().equals("count")) {
      return null;
    }
    List<VectorSchemaRoot> batches = result.collect();
    try {
      Long count = null;
      for (VectorSchemaRoot b : batches) {
        if (b.getRowCount() == 1 && b.getVector(0) instanceof BigIntVector v && !v.isNull(0)) {
          count = v.get(0);
        }
      }
      return count;
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }
}
