package dev.quiver.executor.arch;

import dev.quiver.arch.PackageCycles;
import org.junit.jupiter.api.Test;

/** The executor's packages, its root package included, depend on each other without cycles. */
class PackageCyclesTest {
  @Test
  void packagesAreFreeOfCycles() {
    PackageCycles.assertFreeOfCycles("dev.quiver.executor");
  }
}
