package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.settings.SessionConfig;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One call of a {@link TableFunction}: its constant arguments, positional and named ({@code name =>
 * value}), and the session's settings. Values are String, Long, BigDecimal, Double, Boolean,
 * LocalDate or LocalDateTime (a {@code TIMESTAMP '...'} literal).
 *
 * @param function the function's name as called, lower-case
 * @param arguments the positional arguments, in order
 * @param options the named arguments by lower-case name
 * @param config the session's settings (store credentials, batch size)
 */
public record TableFunctionCall(
    String function, List<Object> arguments, Map<String, Object> options, SessionConfig config) {
  public TableFunctionCall {
    arguments = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(arguments));
    options = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(options));
  }

  /** Positional argument {@code index} as text, or a typed error saying what it should be. */
  public String string(int index, String what) {
    if (index >= arguments.size() || !(arguments.get(index) instanceof String s)) {
      throw new QueryTypeException(
          function + " takes " + what + " as argument " + (index + 1) + ", a string");
    }
    return s;
  }

  /**
   * Fails when a positional argument past {@code count} or an option outside {@code known} is
   * given.
   */
  public void check(int count, Set<String> known) {
    if (arguments.size() > count) {
      throw new QueryTypeException(
          function + " takes " + count + " positional argument(s), got " + arguments.size());
    }
    for (String name : options.keySet()) {
      if (!known.contains(name.toLowerCase(Locale.ROOT))) {
        throw new QueryTypeException(
            function
                + " has no option "
                + name
                + (known.isEmpty() ? "" : "; its options are " + new TreeSet<>(known)));
      }
    }
  }
}
