package dev.quiver.tests;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/** {@link IcebergTpchTestBase} at SF 0.01. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class IcebergTpchTest extends IcebergTpchTestBase {
  @Override
  double scale() {
    return 0.01;
  }

  @Override
  Duration queryTimeout() {
    return Duration.ofSeconds(30);
  }
}
