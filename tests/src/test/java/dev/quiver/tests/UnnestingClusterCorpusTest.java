package dev.quiver.tests;

import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.planner.DistributedSettings;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;

/**
 * The SQL corpus on an embedded cluster of 2 executors with Quiver's own subquery unnesting,
 * against DuckDB (tasks of 64 KiB, as {@link DistributedSqlCorpusTest}).
 */
@Tag("slow")
class UnnestingClusterCorpusTest extends CorpusTestBase {
  @Override
  RowEngine openActual(Path dir) {
    SessionConfig config =
        new SessionConfig()
            .set(DistributedSettings.BYTES_PER_TASK, "64KB")
            .set(BindingSettings.UNNESTING.key(), "quiver");
    return ClusterFixture.embedded(2, dir, config).rows();
  }
}
