package dev.quiver.examples.engine;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.cluster.ClusterTarget;
import java.nio.file.Path;

/**
 * Quiver's distributed engine on an embedded cluster of 2 executors started in this process (a
 * scheduler and executors on loopback, sharing the machine's cores), planned for the same number of
 * partitions as the in-process engine.
 */
public final class EmbeddedQuiverEngine implements Engine {
  /** The engine's name on the command line. */
  public static final String NAME = "quiver-embedded2";

  private static final int EXECUTORS = 2;

  private final ClusterTarget cluster;
  private final QuiverEngine quiver;

  /** Starts the cluster; sessions are planned for {@code partitions} partitions. */
  public EmbeddedQuiverEngine(int partitions) {
    this.cluster = ClusterTarget.embedded(EXECUTORS);
    try {
      this.quiver =
          new QuiverEngine(
              cluster.newSession(new SessionConfig().withTargetPartitions(partitions)));
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** The session on the cluster (e.g. to {@code SET} options). */
  public QuiverEngine quiver() {
    return quiver;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void registerParquet(String table, Path path) {
    quiver.registerParquet(table, path);
  }

  @Override
  public void registerCsv(String table, Path path) {
    quiver.registerCsv(table, path);
  }

  @Override
  public void registerIceberg(String table, Path location) {
    quiver.registerIceberg(table, location);
  }

  @Override
  public void set(String key, String value) {
    quiver.set(key, value);
  }

  @Override
  public long execute(String sql) {
    return quiver.execute(sql);
  }

  @Override
  public void close() {
    try {
      quiver.close();
    } finally {
      cluster.close();
    }
  }
}
