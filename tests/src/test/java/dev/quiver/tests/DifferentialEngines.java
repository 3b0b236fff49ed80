package dev.quiver.tests;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * DuckDB and the Quiver engines that a differential test compares with it, over one data folder,
 * opened when first used and queried on one thread. An engine whose check timed out is closed
 * (cancelling its query) and opened again by the next check.
 */
final class DifferentialEngines implements AutoCloseable {
  private final QueryThread thread = new QueryThread();
  private final Path dir;
  private final List<String> names;
  private final List<Function<Path, RowEngine>> openers;
  private final RowEngine[] engines;
  private RowEngine reference;

  /** The engines under test, by name, each opened over {@code dir} by its function. */
  DifferentialEngines(Path dir, Map<String, Function<Path, RowEngine>> actual) {
    this.dir = dir;
    this.names = List.copyOf(actual.keySet());
    this.openers = new ArrayList<>(actual.values());
    this.engines = new RowEngine[names.size()];
  }

  /** One process at 1 and at 4 partitions, and an embedded cluster of 2 executors. */
  static Map<String, Function<Path, RowEngine>> processesAndCluster(
      dev.quiver.binding.settings.SessionConfig clusterConfig) {
    Map<String, Function<Path, RowEngine>> out = new LinkedHashMap<>();
    out.put("1 partition", d -> Differential.actual(d, 1));
    out.put("4 partitions", d -> Differential.actual(d, 4));
    out.put("embedded cluster", d -> ClusterFixture.embedded(2, d, clusterConfig).rows());
    return out;
  }

  /** The names of the engines under test, in order. */
  List<String> names() {
    return names;
  }

  /**
   * Runs {@code check} with DuckDB and engine {@code index} on the query thread, failing after
   * {@code timeout}.
   */
  void check(int index, String label, Duration timeout, BiConsumer<RowEngine, RowEngine> check) {
    thread.run(
        timeout,
        label,
        () -> {
          if (reference == null) {
            reference = Differential.reference(dir);
          }
          if (engines[index] == null) {
            engines[index] = openers.get(index).apply(dir);
          }
          check.accept(reference, engines[index]);
        },
        () -> drop(index));
  }

  private void drop(int index) {
    RowEngine engine = engines[index];
    engines[index] = null;
    if (engine != null) {
      engine.close();
    }
  }

  @Override
  public void close() {
    thread.run(
        Duration.ofSeconds(60),
        "close",
        () -> {
          for (int i = 0; i < engines.length; i++) {
            drop(i);
          }
          if (reference != null) {
            reference.close();
          }
        });
    thread.close();
  }
}
