package dev.quiver.tests;

import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;

/** TPC-H SF 0.1 on {@code EmbeddedClusterModule(2)} with default distributed settings. */
class EmbeddedClusterTpchTest extends ClusterTpchTestBase {
  @Override
  ClusterFixture.ClusterRows openCluster(Path dir) {
    return ClusterFixture.embedded(2, dir, new SessionConfig());
  }
}
