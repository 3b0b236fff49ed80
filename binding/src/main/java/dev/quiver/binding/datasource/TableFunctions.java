package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.QuiverException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/** The {@link TableFunction}s on the class path, found once through {@link ServiceLoader}. */
public final class TableFunctions {
  private static volatile Map<String, TableFunction> installed;

  private TableFunctions() {}

  /** The installed functions by lower-case name. */
  public static Map<String, TableFunction> installed() {
    Map<String, TableFunction> found = installed;
    if (found == null) {
      synchronized (TableFunctions.class) {
        found = installed;
        if (found == null) {
          found = load();
          installed = found;
        }
      }
    }
    return found;
  }

  /** The installed function named {@code name} (any case), or null. */
  public static TableFunction find(String name) {
    return installed().get(name.toLowerCase(Locale.ROOT));
  }

  private static Map<String, TableFunction> load() {
    Map<String, TableFunction> byName = new LinkedHashMap<>();
    try {
      for (TableFunction f :
          ServiceLoader.load(TableFunction.class, TableFunction.class.getClassLoader())) {
        TableFunction previous = byName.putIfAbsent(f.name().toLowerCase(Locale.ROOT), f);
        if (previous != null) {
          throw new QuiverException(
              "Two table functions are named '"
                  + f.name()
                  + "': "
                  + previous.getClass().getName()
                  + " and "
                  + f.getClass().getName());
        }
      }
    } catch (ServiceConfigurationError e) {
      throw new QuiverException("Loading table functions failed: " + e.getMessage(), e);
    }
    return Collections.unmodifiableMap(byName);
  }
}
