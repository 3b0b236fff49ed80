package dev.quiver.distributed.arch;

import com.tngtech.archunit.core.importer.ImportOption;
import dev.quiver.arch.PackageCycles;
import org.junit.jupiter.api.Test;

/**
 * The distributed engine's packages, its root package included, depend on each other without
 * cycles. Only its own classes: cluster-common's share the root package name and have their own
 * test (and its test jar, on this class path, is not told apart from main classes by
 * DO_NOT_INCLUDE_TESTS).
 */
class PackageCyclesTest {
  @Test
  void packagesAreFreeOfCycles() {
    PackageCycles.assertFreeOfCycles(
        "dev.quiver.distributed", ImportOption.Predefined.DO_NOT_INCLUDE_JARS);
  }
}
