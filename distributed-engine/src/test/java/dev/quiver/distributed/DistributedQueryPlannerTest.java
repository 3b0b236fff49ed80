package dev.quiver.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.planner.DistributedSettings;
import org.junit.jupiter.api.Test;

class DistributedQueryPlannerTest {

  @Test
  void eachExecutorHashingItsOwnCopyDividesTheCollectThreshold() {
    SessionConfig config = new SessionConfig();
    long collect = BindingSettings.COLLECT_BUILD_THRESHOLD_ROWS.defaultValue();
    assertThat(DistributedQueryPlanner.broadcastThresholdRows(config, 1)).isEqualTo(collect);
    assertThat(DistributedQueryPlanner.broadcastThresholdRows(config, 2)).isEqualTo(collect / 2);
    assertThat(DistributedQueryPlanner.broadcastThresholdRows(config, 4)).isEqualTo(collect / 4);

    config.set(BindingSettings.COLLECT_BUILD_THRESHOLD_ROWS.key(), "9000");
    assertThat(DistributedQueryPlanner.broadcastThresholdRows(config, 3)).isEqualTo(3000);
  }

  @Test
  void anExplicitBroadcastThresholdIsTakenAsIs() {
    SessionConfig config =
        new SessionConfig().set(DistributedSettings.BROADCAST_THRESHOLD_ROWS, "1234");
    assertThat(DistributedQueryPlanner.broadcastThresholdRows(config, 4)).isEqualTo(1234);
    config.set(DistributedSettings.BROADCAST_THRESHOLD_ROWS, "0");
    assertThat(DistributedQueryPlanner.broadcastThresholdRows(config, 2)).isZero();
  }
}
