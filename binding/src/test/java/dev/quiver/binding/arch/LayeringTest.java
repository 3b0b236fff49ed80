package dev.quiver.binding.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Keeps the binding free of distribution concerns and its public API free of Calcite. */
class LayeringTest {
  private static JavaClasses binding;

  @BeforeAll
  static void importClasses() {
    binding = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.quiver.binding");
  }

  @Test
  void bindingKnowsNothingOfGuiceGrpcProtobufOrTheDistributedEngine() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "com.google.inject..", "io.grpc..", "com.google.protobuf..", "org.apache.arrow.flight..",
            "dev.quiver.distributed..", "dev.quiver.decorators..", "dev.quiver.scheduler..",
            "dev.quiver.executor..")
        .check(binding);
  }

  @Test
  void publicApiExposesNoCalciteTypes() {
    noClasses()
        .that()
        .resideInAPackage("dev.quiver.binding")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.calcite..")
        .check(binding);
  }
}
