package dev.quiver.binding.sql;

import dev.quiver.binding.functions.Group;
import java.io.StringReader;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Quiver's SQL as JDBC's {@code DatabaseMetaData} describes a database: its keywords, taken from
 * the parser Quiver runs, and its scalar functions in JDBC's four groups, taken from the function
 * registry ({@link QuiverFunctions#SUPPORTED}), whose sections of scalar functions are these
 * groups. Both follow the code, so they cannot drift from what a query accepts.
 */
public final class JdbcVocabulary {
  private JdbcVocabulary() {}

  /**
   * The parser's keywords that are not SQL:92 reserved words (what {@code getSQLKeywords()} lists),
   * upper case.
   */
  public static List<String> keywords() {
    String jdbc =
        SqlPipeline.PARSER_CONFIG
            .parserFactory()
            .getParser(new StringReader(""))
            .getMetadata()
            .getJdbcKeywords();
    return Arrays.stream(jdbc.split(",")).map(String::strip).filter(k -> !k.isEmpty()).toList();
  }

  /**
   * The registry's scalar functions of {@code group} (its section), lower case, in the registry's
   * order; without the names written as syntax rather than called ({@code LIKE}, {@code CASE}).
   */
  public static List<String> functions(Group group) {
    Set<String> names = new LinkedHashSet<>();
    for (QuiverFunctions.Function f : QuiverFunctions.SUPPORTED) {
      if (f.group() == group) {
        for (String name : f.names()) {
          if (isCalled(name, f.signature())) {
            names.add(name);
          }
        }
      }
    }
    return List.copyOf(names);
  }

  /**
   * Whether {@code name} is a function's name: a plain word that the signature does not show
   * written before an operand ({@code s LIKE p}, {@code CASE x WHEN}).
   */
  static boolean isCalled(String name, String signature) {
    if (!name.matches("[a-z_][a-z0-9_]*")) {
      return false;
    }
    return !Pattern.compile("(?i)(^|[^a-z0-9_])" + name + " +[^(\\s]").matcher(signature).find();
  }
}
