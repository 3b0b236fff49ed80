package dev.quiver.tests;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/** {@link IcebergTpchTestBase} at SF 1, the scale the issue names. */
@Tag("slow")
@Timeout(value = 3600, unit = TimeUnit.SECONDS)
class IcebergTpchSlowTest extends IcebergTpchTestBase {
  @Override
  double scale() {
    return 1;
  }

  @Override
  Duration queryTimeout() {
    return Duration.ofSeconds(300);
  }
}
