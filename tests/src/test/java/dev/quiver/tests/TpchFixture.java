package dev.quiver.tests;

import dev.quiver.examples.tpch.TpchData;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** TPC-H Parquet data under {@code target/tpch-data}, generated at most once per JVM and scale. */
final class TpchFixture {
  private static final Map<String, Path> GENERATED = new HashMap<>();

  private TpchFixture() {}

  /** The data folder for {@code scaleFactor}, generated on first use (and reused across builds). */
  static synchronized Path data(double scaleFactor) {
    String key = TpchData.formatScale(scaleFactor);
    return GENERATED.computeIfAbsent(
        key,
        k -> {
          Path dir = Path.of("target", "tpch-data", "sf" + k).toAbsolutePath();
          return TpchData.generate(scaleFactor, dir);
        });
  }
}
