package dev.quiver.binding.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.quiver.binding.dataframe.Cancellable;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.dataframe.Expr;
import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.dataframe.Row;
import dev.quiver.binding.datasource.ScanRequest;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.datasource.TableStatistics;
import dev.quiver.binding.logical.LogicalPlan;
import dev.quiver.binding.planner.PlanningContext;
import dev.quiver.binding.planner.QueryPlanner;
import dev.quiver.binding.settings.SessionConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the binding free of distribution concerns and its public API (the root package, the
 * exceptions, UDFs and the API types that live beside their implementation) free of Calcite.
 */
class LayeringTest {
  private static JavaClasses binding;

  @BeforeAll
  static void importClasses() {
    binding =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.quiver.binding");
  }

  @Test
  void bindingKnowsNothingOfGuiceGrpcProtobufOrTheDistributedEngine() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "com.google.inject..",
            "io.grpc..",
            "com.google.protobuf..",
            "org.apache.arrow.flight..",
            "dev.quiver.distributed..",
            "dev.quiver.decorators..",
            "dev.quiver.scheduler..",
            "dev.quiver.executor..")
        .check(binding);
  }

  @Test
  void publicApiExposesNoCalciteTypes() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.quiver.binding", "dev.quiver.binding.errors", "dev.quiver.binding.udf")
        .or()
        .belongToAnyOf(
            DataFrame.class,
            Expr.class,
            Row.class,
            JoinType.class,
            Cancellable.class,
            SessionConfig.class,
            TableProvider.class,
            ScanRequest.class,
            TableStatistics.class,
            QueryPlanner.class,
            PlanningContext.class,
            LogicalPlan.class)
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.calcite..")
        .check(binding);
  }
}
