package dev.quiver.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * The package-cycle check every module runs on its own packages (from its own PackageCyclesTest):
 * each package under a root, the root included, is a slice, and no slices depend on each other in a
 * cycle. In a package no module's root contains, so that no module's check imports it.
 */
public final class PackageCycles {
  private PackageCycles() {}

  /**
   * Fails when the main classes under {@code root}, imported with {@code options} besides leaving
   * out tests, have a package cycle.
   */
  public static void assertFreeOfCycles(String root, ImportOption... options) {
    ClassFileImporter importer =
        new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS);
    for (ImportOption option : options) {
      importer = importer.withImportOption(option);
    }
    slices()
        .assignedFrom(
            new SliceAssignment() {
              @Override
              public SliceIdentifier getIdentifierOf(JavaClass c) {
                return SliceIdentifier.of(c.getPackageName());
              }

              @Override
              public String getDescription() {
                return "every package under " + root;
              }
            })
        .should()
        .beFreeOfCycles()
        .check(importer.importPackages(root));
  }
}
