package dev.quiver.scheduler.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.quiver.binding.errors.QuiverException;
import java.net.URISyntaxException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The scheduler is the control plane: it carries nothing of the engine, neither its classes nor its
 * libraries (Calcite, Parquet, the AWS SDK, Iceberg), so its jar stays small and its process cannot
 * plan or run a query. What it shares with the engine is quiver-common (the error base class,
 * setting definitions, the Bloom filter) and cluster-common (wire protocol, transport, security,
 * limits).
 */
class ControlPlaneTest {
  private static JavaClasses scheduler;

  @BeforeAll
  static void importClasses() {
    scheduler =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.quiver.scheduler");
  }

  @Test
  void schedulerDependsOnNoEnginePackage() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.calcite..",
            "org.apache.parquet..",
            "software.amazon..",
            "org.apache.iceberg..",
            "dev.quiver.distributed.codec..",
            "dev.quiver.distributed.planner..",
            "dev.quiver.distributed.client..",
            "dev.quiver.distributed.shuffle..",
            "dev.quiver.distributed.cluster..",
            "dev.quiver.decorators..",
            "dev.quiver.executor..",
            "dev.quiver.iceberg..")
        .orShould()
        .dependOnClassesThat(engineClassOfTheBinding())
        .check(scheduler);
  }

  /** Not even on the class path: a dependency on the engine's modules would bring them back. */
  @Test
  void theEngineIsNotOnTheClassPath() {
    for (String name :
        new String[] {
          "dev.quiver.binding.SessionContext",
          "dev.quiver.distributed.DistributedModule",
          "org.apache.calcite.rel.RelNode",
          "org.apache.parquet.schema.MessageType",
          "software.amazon.awssdk.services.s3.S3Client"
        }) {
      assertThatThrownBy(() -> Class.forName(name))
          .as(name)
          .isInstanceOf(ClassNotFoundException.class);
    }
    assertThat(QuiverException.class.getName()).startsWith("dev.quiver.binding.");
  }

  /**
   * A class of the binding's packages that quiver-common does not hold: quiver-common keeps the
   * binding's package names for the classes it took over, so its classes are told apart by where
   * they were loaded from.
   */
  private static DescribedPredicate<JavaClass> engineClassOfTheBinding() {
    String common = location(QuiverException.class);
    return DescribedPredicate.describe(
        "are of the binding's packages but not quiver-common's",
        c ->
            c.getPackageName().startsWith("dev.quiver.binding")
                && c.getSource().map(s -> !s.getUri().toString().contains(common)).orElse(true));
  }

  private static String location(Class<?> c) {
    try {
      return c.getProtectionDomain().getCodeSource().getLocation().toURI().getPath();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
