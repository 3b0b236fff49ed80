package dev.quiver.benchmarks.engine.spark;

import dev.quiver.examples.engine.Engine;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * Spark SQL in local mode in this process, with as many cores (and shuffle partitions) as Quiver
 * is given, reading the same Parquet files through temporary views. Compiled only by the Maven
 * profile {@code spark}.
 */
public final class SparkEngine implements Engine {
  private final SparkSession spark;

  /** Starts a local Spark session with {@code threads} cores. */
  public SparkEngine(int threads) {
    int n = Math.max(1, threads);
    this.spark =
        SparkSession.builder()
            .appName("quiver-bench")
            .master("local[" + n + "]")
            .config("spark.sql.shuffle.partitions", n)
            .config("spark.default.parallelism", n)
            .config("spark.ui.enabled", false)
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
  }

  @Override
  public String name() {
    return "spark";
  }

  @Override
  public void registerParquet(String table, Path path) {
    spark.read().parquet(path.toAbsolutePath().toString()).createOrReplaceTempView(table);
  }

  @Override
  public void registerCsv(String table, Path path) {
    spark
        .read()
        .option("header", true)
        .option("inferSchema", true)
        .csv(path.toAbsolutePath().toString())
        .createOrReplaceTempView(table);
  }

  @Override
  public long execute(String sql) {
    // Collecting brings every row to the driver, as collect() does for Quiver.
    return spark.sql(sql).collectAsList().size();
  }

  @Override
  public void close() {
    spark.stop();
  }
}
