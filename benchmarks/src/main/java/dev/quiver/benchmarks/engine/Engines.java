package dev.quiver.benchmarks.engine;

import dev.quiver.examples.engine.EmbeddedQuiverEngine;
import dev.quiver.examples.engine.Engine;
import dev.quiver.examples.engine.QuiverEngine;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The engines {@code bench} knows by name; add an entry here to make a new engine available.
 * Engines whose classes only some builds contain (Spark, from the {@code spark} Maven profile) are
 * listed only when their class is on the class path.
 */
public final class Engines {
  /** Name of the Spark SQL engine. */
  public static final String SPARK = "spark";

  /** Class of the Spark engine, compiled only by the {@code spark} Maven profile. */
  static final String SPARK_CLASS = "dev.quiver.benchmarks.engine.spark.SparkEngine";

  private static final Map<String, IntFunction<Engine>> FACTORIES = new LinkedHashMap<>();

  static {
    FACTORIES.put(QuiverEngine.NAME, QuiverEngine::new);
    FACTORIES.put(EmbeddedQuiverEngine.NAME, EmbeddedQuiverEngine::new);
    FACTORIES.put("duckdb", DuckDbEngine::new);
    optional(SPARK, SPARK_CLASS);
  }

  private Engines() {}

  /** Registers {@code className} (a public constructor taking the thread count) if present. */
  private static void optional(String name, String className) {
    Class<?> type;
    try {
      type = Class.forName(className, false, Engines.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return;
    }
    FACTORIES.put(
        name,
        threads -> {
          try {
            return (Engine) type.getConstructor(int.class).newInstance(threads);
          } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r
                ? r
                : new IllegalStateException("Cannot start " + name + ": " + e.getCause(), e);
          } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException(
                "Cannot start " + name + ": its libraries are incomplete (" + e + ")", e);
          }
        });
  }

  /** Names of the available engines. */
  public static List<String> names() {
    return new ArrayList<>(FACTORIES.keySet());
  }

  /**
   * Why {@code name} cannot be used: unknown, or (for Spark) not part of this build.
   *
   * @return null when the engine is available
   */
  public static String unavailableReason(String name) {
    String key = name.trim().toLowerCase(Locale.ROOT);
    if (FACTORIES.containsKey(key)) {
      return null;
    }
    if (key.equals(SPARK)) {
      return "Engine 'spark' is not in this build: build with the Maven profile spark"
          + " (mvn -Pspark -DskipTests package) and run benchmarks/quiver-bench-spark.sh"
          + " (see README, 'Benchmarks'); available: "
          + String.join(", ", names());
    }
    return "Unknown engine '" + name + "': use one of " + String.join(", ", names());
  }

  /** Creates engine {@code name} using {@code threads} threads (partitions). */
  public static Engine create(String name, int threads) {
    IntFunction<Engine> factory = FACTORIES.get(name.trim().toLowerCase(Locale.ROOT));
    if (factory == null) {
      throw new IllegalArgumentException(unavailableReason(name));
    }
    return factory.apply(threads);
  }
}
