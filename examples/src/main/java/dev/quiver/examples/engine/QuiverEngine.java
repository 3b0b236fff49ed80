package dev.quiver.examples.engine;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/** The Quiver binding, in process, planned for a given number of partitions. */
public final class QuiverEngine implements Engine {
  /** The engine's name on the command line. */
  public static final String NAME = "quiver";

  private final SessionContext ctx;

  /** Creates a session planned for {@code partitions} partitions. */
  public QuiverEngine(int partitions) {
    this(new SessionContext(new SessionConfig().withTargetPartitions(partitions)));
  }

  /** Runs on {@code session} (e.g. a distributed one); closing the engine closes it. */
  public QuiverEngine(SessionContext session) {
    this.ctx = session;
  }

  /** The underlying session. */
  public SessionContext session() {
    return ctx;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void registerParquet(String table, Path path) {
    ctx.registerParquet(table, path.toString());
  }

  @Override
  public void registerCsv(String table, Path path) {
    ctx.registerCsv(table, path.toString());
  }

  @Override
  public void registerIceberg(String table, Path location) {
    ctx.registerIceberg(table, location.toString());
  }

  @Override
  public void set(String key, String value) {
    ctx.config().set(key, value);
  }

  @Override
  public long execute(String sql) {
    List<VectorSchemaRoot> batches = ctx.sql(sql).collect();
    long rows = 0;
    try {
      for (VectorSchemaRoot b : batches) {
        rows += b.getRowCount();
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    return rows;
  }

  @Override
  public void close() {
    ctx.close();
  }
}
