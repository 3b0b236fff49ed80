package dev.quiver.distributed.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The distributed engine's packages, its root package included, depend on each other without
 * cycles. Only its own classes: cluster-common's share the root package name and have their own
 * test (and its test jar, on this class path, is not told apart from main classes by
 * DO_NOT_INCLUDE_TESTS).
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
