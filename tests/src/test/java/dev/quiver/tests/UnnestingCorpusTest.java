package dev.quiver.tests;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;

/**
 * The SQL corpus on the single-process binding with 4 partitions and Quiver's own subquery
 * unnesting ({@code quiver.optimizer.unnesting = quiver}), against DuckDB. Slow-tagged: {@link
 * SqlCorpusTest} runs the same queries in the default suite, and {@code
 * -Dquiver.tests.unnesting=quiver} runs every differential test on this path.
 */
@Tag("slow")
class UnnestingCorpusTest extends CorpusTestBase {
  @Override
  RowEngine openActual(Path dir) {
    SessionConfig config =
        new SessionConfig().withTargetPartitions(4).set(BindingSettings.UNNESTING.key(), "quiver");
    return new QuiverRows(new SessionContext(config), dir, "quiver-unnesting", () -> {});
  }
}
