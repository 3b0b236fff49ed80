package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code java -cp} run without {@code --add-opens=java.base/java.nio=ALL-UNNAMED} fails with one
 * line naming the flag (Arrow's own error would be a MemoryUtil failure buried under leak reports).
 */
class ArrowAccessTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void missingAddOpensIsSaidFirstAndClearly() throws Exception {
    Path jar = ProcessCluster.jar("examples", "quiver.jar");
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    jar.toString(),
                    "dev.quiver.examples.cli.QuiverCli",
                    "sql",
                    "-e",
                    "SELECT 1"))
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(1);
    String first = output.lines().filter(l -> !l.isBlank()).findFirst().orElse("");
    assertThat(first).startsWith("error: ").contains("--add-opens=java.base/java.nio=ALL-UNNAMED");
    assertThat(output).doesNotContain("MemoryUtil").doesNotContain("leak");
  }
}
