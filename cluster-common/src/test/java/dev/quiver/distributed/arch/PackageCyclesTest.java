package dev.quiver.distributed.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * Cluster-common's packages (proto, wire, transport, security, limits, spi, logging) depend on each
 * other without cycles.
 */
class PackageCyclesTest {
  private static final String ROOT = "dev.quiver.distributed";

  @Test
  void packagesAreFreeOfCycles() {
    slices()
        .assignedFrom(
            new SliceAssignment() {
              @Override
              public SliceIdentifier getIdentifierOf(JavaClass c) {
                return SliceIdentifier.of(c.getPackageName());
              }

              @Override
              public String getDescription() {
                return "every package under " + ROOT;
              }
            })
        .should()
        .beFreeOfCycles()
        .check(
            new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages(ROOT));
  }
}
