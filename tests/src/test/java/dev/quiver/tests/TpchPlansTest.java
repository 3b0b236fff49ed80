package dev.quiver.tests;

import static org.assertj.core.api.Assertions.fail;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.examples.tpch.TpchData;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Golden files of the 22 TPC-H plans at SF 0.01: the logical and physical plan in one process
 * (target_partitions 4) and the stage plan on an embedded cluster of 2 executors (at most 2 tasks a
 * stage, so that the plans do not depend on the machine's cores), as {@code explain()} prints them,
 * in {@code src/test/resources/tpch-plans/qNN.txt}. A planner change that alters a plan fails here
 * with the first differing line; when the new plan is intended, rewrite the files with
 *
 * <pre>
 * mvn -B -ntp -pl tests -am verify -Djacoco.skip=true -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Dtest=TpchPlansTest -Dplans.regenerate=true
 * </pre>
 *
 * and review their diff like code.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TpchPlansTest {
  private static final String RESOURCE_DIR = "tpch-plans";
  private static final Path SOURCE_DIR = Path.of("src", "test", "resources", RESOURCE_DIR);
  private static final boolean REGENERATE = Boolean.getBoolean("plans.regenerate");

  private Path data;
  private Injector cluster;

  @BeforeAll
  void start() {
    data = TpchFixture.data(0.01);
    cluster =
        Guice.createInjector(
            new EmbeddedClusterModule(
                2,
                Differential.configured(
                    new SessionConfig()
                        .withTargetPartitions(4)
                        .set(DistributedSettings.MAX_TASKS, "2"))));
  }

  @AfterAll
  void stop() {
    cluster.getInstance(ClusterLifecycle.class).close();
  }

  @TestFactory
  Stream<DynamicTest> plansMatchTheirGoldenFiles() {
    return TpchQueries.all().stream().map(q -> DynamicTest.dynamicTest(q.name(), () -> check(q)));
  }

  private void check(TpchQuery q) {
    String actual = plans(q);
    String file = q.name() + ".txt";
    if (REGENERATE) {
      write(SOURCE_DIR.resolve(file), actual);
      return;
    }
    String expected = read(RESOURCE_DIR + "/" + file);
    if (expected == null) {
      fail(
          "No golden file %s/%s: run with -Dplans.regenerate=true (see TpchPlansTest)",
          SOURCE_DIR, file);
    }
    if (!expected.equals(actual)) {
      fail(
          "The plans of %s differ from %s/%s (rerun with -Dplans.regenerate=true if the change is"
              + " intended, and review the diff)%n%s%nwhole plans:%n%s",
          q.name(), SOURCE_DIR, file, firstDifference(expected, actual), actual);
    }
  }

  /** The query's plans in one process and on the cluster, as the golden file holds them. */
  private String plans(TpchQuery q) {
    StringBuilder sb = new StringBuilder();
    sb.append("-- TPC-H ").append(q.name()).append(" at SF 0.01\n");
    sb.append("-- one process, target_partitions 4\n");
    try (SessionContext local =
        new SessionContext(Differential.configured(new SessionConfig().withTargetPartitions(4)))) {
      register(local);
      sb.append(local.sql(q.sql()).explain().strip()).append('\n');
    }
    sb.append("-- embedded cluster of 2 executors, at most 2 tasks a stage\n");
    try (SessionContext distributed = cluster.getInstance(SessionContext.class)) {
      register(distributed);
      sb.append(physicalOnly(distributed.sql(q.sql()).explain().strip())).append('\n');
    }
    return sb.toString();
  }

  /** The cluster's logical plan is the one above; its physical plan is what differs. */
  private static String physicalOnly(String explain) {
    int at = explain.indexOf("Physical plan:");
    return at < 0 ? explain : explain.substring(at);
  }

  private void register(SessionContext ctx) {
    for (String table : TpchData.TABLES) {
      ctx.registerParquet(table, TpchData.tableDirectory(data, table).toString());
    }
  }

  private static String firstDifference(String expected, String actual) {
    List<String> e = expected.lines().toList();
    List<String> a = actual.lines().toList();
    for (int i = 0; i < Math.max(e.size(), a.size()); i++) {
      String el = i < e.size() ? e.get(i) : "<end of file>";
      String al = i < a.size() ? a.get(i) : "<end of plan>";
      if (!el.equals(al)) {
        return String.format("line %d%n  golden: %s%n  now:    %s", i + 1, el, al);
      }
    }
    return "(line endings differ)";
  }

  private static String read(String resource) {
    try (InputStream in = TpchPlansTest.class.getClassLoader().getResourceAsStream(resource)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file.toAbsolutePath(), e);
    }
  }
}
