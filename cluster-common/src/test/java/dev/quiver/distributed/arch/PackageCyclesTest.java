package dev.quiver.distributed.arch;

import com.tngtech.archunit.core.importer.ImportOption;
import dev.quiver.arch.PackageCycles;
import org.junit.jupiter.api.Test;

/**
 * Cluster-common's packages (proto, wire, transport, security, limits, spi, logging) depend on each
 * other without cycles.
 */
class PackageCyclesTest {
  @Test
  void packagesAreFreeOfCycles() {
    PackageCycles.assertFreeOfCycles(
        "dev.quiver.distributed", ImportOption.Predefined.DO_NOT_INCLUDE_JARS);
  }
}
