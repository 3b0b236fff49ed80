package dev.quiver.tests;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.planner.DistributedSettings;
import java.nio.file.Path;

/**
 * The SQL corpus on an embedded cluster of 2 executors, against DuckDB. Tasks read 64 KiB of input
 * each, so even SF 0.01 runs multi-stage, multi-task plans.
 */
class DistributedSqlCorpusTest extends CorpusTestBase {
  @Override
  RowEngine openActual(Path dir) {
    SessionConfig config = new SessionConfig().set(DistributedSettings.BYTES_PER_TASK, "64KB");
    return ClusterFixture.embedded(2, dir, config).rows();
  }
}
