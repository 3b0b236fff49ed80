package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.planner.DistributedSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The corpus's {@code shared_} entries (WITH views and views read two and three times, nested,
 * joined with themselves, in subqueries) against DuckDB: in one process at several partition
 * counts, where each is planned with a shared node, and on an embedded cluster of 2 at several task
 * counts, where the distributed planner plans without them (a subplan read twice is one stage
 * there, exchange reuse).
 */
@Tag("slow")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SharedSubplansDifferentialTest {
  private static final List<SqlCorpus.Entry> SHARED =
      SqlCorpus.load("sql-corpus.sql").stream()
          .filter(e -> e.name().startsWith("shared_"))
          .toList();

  /** Entries whose copies the field trimmer narrows alike, so that one process shares them. */
  private static final List<String> PLANNED_SHARED =
      List.of(
          "shared_with_view_in_join_and_scalar_subquery",
          "shared_with_view_three_times",
          "shared_with_views_nested",
          "shared_with_view_self_join_on_values",
          "shared_with_view_in_in_and_exists",
          "shared_view_used_twice",
          "shared_subquery_repeated_in_text",
          "shared_with_view_empty");

  private final QueryThread queryThread = new QueryThread();
  private Path dir;
  private RowEngine reference;

  @BeforeAll
  void open() {
    dir = TpchFixture.data(CorpusTestBase.SCALE);
    queryThread.run(Duration.ofSeconds(60), "open", () -> reference = Differential.reference(dir));
  }

  @AfterAll
  void close() {
    queryThread.run(Duration.ofSeconds(60), "close", () -> reference.close());
    queryThread.close();
  }

  @Test
  void theCorpusHasTheSharedEntries() {
    assertThat(SHARED.stream().map(SqlCorpus.Entry::name)).containsAll(PLANNED_SHARED);
  }

  @Test
  void oneProcessAtSeveralPartitionCounts() {
    for (int partitions : new int[] {1, 3, 7}) {
      queryThread.run(
          Duration.ofSeconds(120),
          "partitions " + partitions,
          () -> {
            try (QuiverRows actual = new QuiverRows(dir, partitions)) {
              for (SqlCorpus.Entry e : SHARED) {
                check(e, actual, "partitions=" + partitions);
                if (PLANNED_SHARED.contains(e.name())) {
                  String plan = planOf(actual, e);
                  assertThat(plan).as(e.name()).contains("SharedSubplanExec: id=1, readers=");
                }
              }
            }
          });
    }
  }

  @Test
  void embeddedClusterOfTwoAtSeveralTaskCounts() {
    queryThread.run(
        Duration.ofSeconds(240),
        "cluster",
        () -> {
          SessionConfig config = new SessionConfig();
          try (QuiverRows actual = ClusterFixture.embedded(2, dir, config).rows()) {
            for (String perTask : new String[] {"64KB", "1MB"}) {
              actual.execute("SET " + DistributedSettings.BYTES_PER_TASK + " = '" + perTask + "'");
              for (SqlCorpus.Entry e : SHARED) {
                check(e, actual, "bytes_per_task=" + perTask);
              }
            }
          }
        });
  }

  private void check(SqlCorpus.Entry e, RowEngine actual, String label) {
    String name = e.name() + " (" + label + ") on " + actual.name();
    try {
      for (SqlCorpus.Step step : e.before()) {
        SqlCorpus.run(step, reference, actual, name);
      }
      QueryResult expected = reference.query(e.reference());
      Differential.check(
          name, e.sql(), expected, actual.query(e.sql()), Differential.sortOf(e.sql(), expected));
    } finally {
      for (SqlCorpus.Step step : e.after()) {
        SqlCorpus.run(step, reference, actual, name);
      }
    }
  }

  private static String planOf(QuiverRows actual, SqlCorpus.Entry e) {
    for (SqlCorpus.Step step : e.before()) {
      actual.execute(step.sql());
    }
    try {
      return actual.session().sql(e.sql()).explain();
    } finally {
      for (SqlCorpus.Step step : e.after()) {
        actual.execute(step.sql());
      }
    }
  }
}
