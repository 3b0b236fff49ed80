package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The {@code quiver} command line's jar carries no benchmark engine (DuckDB's native libraries made
 * it over 200 MB); {@code quiver-bench.jar} carries them, and not JMH.
 */
class CliJarTest {
  private static List<String> entries(Path jar) throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      return file.stream().map(ZipEntry::getName).toList();
    }
  }

  @Test
  void quiverJarHasNoDuckDbNorSparkClasses() throws IOException {
    List<String> names = entries(ProcessCluster.jar("examples", "quiver.jar"));
    assertThat(names).contains("dev/quiver/examples/cli/QuiverCli.class");
    assertThat(names)
        .noneMatch(n -> n.startsWith("org/duckdb/"))
        .noneMatch(n -> n.startsWith("libduckdb")) // DuckDB's native libraries
        .noneMatch(n -> n.startsWith("org/apache/spark/"))
        .noneMatch(n -> n.startsWith("dev/quiver/benchmarks/"));
  }

  @Test
  void benchJarHasTheHarnessAndDuckDbButNotJmh() throws IOException {
    List<String> names = entries(ProcessCluster.jar("benchmarks", "quiver-bench.jar"));
    assertThat(names)
        .contains("dev/quiver/benchmarks/bench/QuiverBench.class")
        .contains("dev/quiver/benchmarks/engine/DuckDbEngine.class")
        .contains("org/duckdb/DuckDBDriver.class")
        .anyMatch(n -> n.startsWith("libduckdb"))
        .noneMatch(n -> n.startsWith("org/openjdk/jmh/"))
        .noneMatch(n -> n.startsWith("org/apache/spark/"));
  }
}
