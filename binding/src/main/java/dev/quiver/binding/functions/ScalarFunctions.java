package dev.quiver.binding.functions;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.util.SqlOperatorTables;

/**
 * The registry of built-in scalar functions: every definition, in the README's order, looked up by
 * name by the translator, its operators the table Calcite validates against.
 */
public final class ScalarFunctions {
  private ScalarFunctions() {}

  /** Every definition, section by section. */
  public static final List<ScalarFunction> ALL = all();

  private static final Map<String, ScalarFunction> BY_NAME = byName();

  /** The operators the definitions declare, for Calcite's validator. */
  public static final SqlOperatorTable OPERATORS = operators();

  private static List<ScalarFunction> all() {
    List<ScalarFunction> out = new ArrayList<>();
    out.addAll(StringFunctions.ALL);
    out.addAll(NumericFunctions.ALL);
    out.addAll(DateTimeFunctions.ROUNDING);
    out.addAll(DateTimeFunctions.ALL);
    out.addAll(SystemFunctions.ALL);
    return List.copyOf(out);
  }

  private static Map<String, ScalarFunction> byName() {
    Map<String, ScalarFunction> m = new HashMap<>();
    for (ScalarFunction f : ALL) {
      if (f.kernel() == null) {
        continue;
      }
      for (String name : f.names()) {
        if (m.put(name, f) != null) {
          throw new IllegalStateException("Two definitions of function " + name);
        }
      }
    }
    return Map.copyOf(m);
  }

  private static SqlOperatorTable operators() {
    List<SqlOperator> ops = new ArrayList<>();
    for (ScalarFunction f : ALL) {
      ops.addAll(f.operators());
    }
    return SqlOperatorTables.of(ops);
  }

  /** The definition translating calls of {@code name} (any case), or null. */
  public static ScalarFunction lookup(String name) {
    return BY_NAME.get(name.toLowerCase(Locale.ROOT));
  }

  /** The names of the functions the translator computes, for "did you mean" hints. */
  public static Set<String> names() {
    return new TreeSet<>(BY_NAME.keySet());
  }
}
