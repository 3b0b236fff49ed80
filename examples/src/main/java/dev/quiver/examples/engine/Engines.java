package dev.quiver.examples.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/** The engines known by name; add an entry here to make a new engine available to the CLI. */
public final class Engines {
  private static final Map<String, IntFunction<Engine>> FACTORIES = new LinkedHashMap<>();

  static {
    FACTORIES.put("quiver", QuiverEngine::new);
    FACTORIES.put("duckdb", DuckDbEngine::new);
  }

  private Engines() {}

  /** Names of the available engines. */
  public static List<String> names() {
    return new ArrayList<>(FACTORIES.keySet());
  }

  /** Creates engine {@code name} using {@code threads} threads (partitions). */
  public static Engine create(String name, int threads) {
    IntFunction<Engine> factory = FACTORIES.get(name.trim().toLowerCase(Locale.ROOT));
    if (factory == null) {
      throw new IllegalArgumentException(
          "Unknown engine '" + name + "': use one of " + String.join(", ", names()));
    }
    return factory.apply(threads);
  }
}
