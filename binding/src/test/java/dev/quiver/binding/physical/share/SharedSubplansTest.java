package dev.quiver.binding.physical.share;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.udf.ScalarUdf;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Subplans read more than once (WITH views and views used two and three times, nested, joined with
 * themselves, in subqueries) are computed once and answer as DuckDB does, at several partition
 * counts and batch sizes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SharedSubplansTest {
  private static final String AGG = "SELECT g, COUNT(*) AS n, SUM(v) AS s FROM t GROUP BY g";

  /** Queries with a subplan read more than once, and the readers of their shared node. */
  private static final List<Object[]> SHARED =
      List.of(
          new Object[] {
            // TPC-H Q15's shape: the view joined and in a scalar subquery.
            "WITH r AS ("
                + AGG
                + ") SELECT g, s FROM r WHERE s = (SELECT MAX(s) FROM r) ORDER BY g",
            2
          },
          new Object[] {
            "WITH r AS ("
                + AGG
                + ") SELECT a.g, a.n, b.s, c.n AS cn FROM r a JOIN r b ON a.g = b.g"
                + " JOIN r c ON c.g = (a.g + 1) % 20 ORDER BY a.g",
            // Field trimming narrows the copies to what each reads: a and c read n, b reads s.
            2
          },
          new Object[] {
            "WITH r AS ("
                + AGG
                + "), q AS (SELECT r1.g, r1.s + r2.s AS s2 FROM r r1 JOIN r r2 ON r1.g = r2.g)"
                + " SELECT x.g, x.s2, y.s2 AS y2 FROM q x JOIN q y ON x.g = y.g ORDER BY x.g",
            2
          },
          new Object[] {
            "WITH r AS (SELECT t.g, u.name, COUNT(*) AS n FROM t JOIN u ON t.g = u.g"
                + " GROUP BY t.g, u.name) SELECT a.name, b.name AS other FROM r a JOIN r b"
                + " ON a.n = b.n AND a.g < b.g ORDER BY 1, 2",
            2
          },
          new Object[] {
            "WITH r AS ("
                + AGG
                + ") SELECT g, n FROM r WHERE g IN (SELECT g FROM r WHERE s > 2000) ORDER BY g",
            2
          },
          new Object[] {
            "WITH r AS (" + AGG + ") SELECT g, s FROM r UNION ALL SELECT g + 100, s FROM r", 2
          },
          new Object[] {
            "WITH r AS ("
                + AGG
                + ") SELECT (SELECT COUNT(*) + MIN(s) FROM r) AS c,"
                + " (SELECT g FROM r ORDER BY s DESC, g LIMIT 1) AS top",
            2
          },
          new Object[] {
            "SELECT a.g, a.s, b.s AS bs FROM vr a JOIN vr b ON a.g = b.g + 1 ORDER BY a.g", 2
          },
          new Object[] {
            "SELECT g FROM t GROUP BY g HAVING SUM(v) > (SELECT AVG(s) FROM ("
                + AGG
                + ") x)"
                + " AND COUNT(*) > 0 ORDER BY g",
            0
          },
          new Object[] {
            // The shared join's build side is empty: its probe side (the view's other reader)
            // never runs.
            "WITH r AS (SELECT g, SUM(v) AS s FROM t WHERE k < 0 GROUP BY g)"
                + " SELECT a.g FROM r a JOIN r b ON a.g = b.g",
            2
          });

  @TempDir static Path spill;
  private final List<String> setup = new ArrayList<>();
  private Connection duckdb;

  @BeforeAll
  void data() throws Exception {
    setup.add("CREATE TABLE t (k INTEGER, g INTEGER, v DECIMAL(10, 2), s VARCHAR)");
    setup.add("CREATE TABLE u (g INTEGER, name VARCHAR)");
    StringBuilder rows = new StringBuilder("INSERT INTO t VALUES ");
    for (int k = 0; k < 1000; k++) {
      rows.append(k > 0 ? ", " : "")
          .append('(')
          .append(k)
          .append(", ")
          .append((k * 7) % 20)
          .append(", ")
          .append((k * 37) % 1000)
          .append(".25, 'row")
          .append(k % 13)
          .append("')");
    }
    setup.add(rows.toString());
    StringBuilder names = new StringBuilder("INSERT INTO u VALUES ");
    for (int g = 0; g < 20; g++) {
      names.append(g > 0 ? ", " : "").append('(').append(g).append(", 'name").append(g % 7);
      names.append("')");
    }
    setup.add(names.toString());
    setup.add("CREATE VIEW vr AS " + AGG);
    duckdb = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duckdb.createStatement()) {
      for (String statement : setup) {
        s.execute(statement);
      }
    }
  }

  @AfterAll
  void noSpillFilesLeft() throws Exception {
    duckdb.close();
    try (var files = java.nio.file.Files.list(spill)) {
      assertThat(files.toList()).isEmpty();
    }
  }

  private SessionContext session(int partitions, int batchSize, boolean share) {
    SessionConfig config =
        new SessionConfig()
            .withTargetPartitions(partitions)
            .set(BindingSettings.BATCH_SIZE.key(), Integer.toString(batchSize))
            .set(BindingSettings.SHARE_SUBPLANS.key(), Boolean.toString(share))
            .set(BindingSettings.SPILL_DIRECTORY.key(), spill.toString());
    SessionContext ctx = new SessionContext(config);
    for (String statement : setup) {
      ctx.sql(statement).collect().forEach(b -> b.close());
    }
    return ctx;
  }

  private List<String> duckdb(String sql) throws Exception {
    try (Statement s = duckdb.createStatement()) {
      List<String> rows = new ArrayList<>();
      try (ResultSet r = s.executeQuery(sql)) {
        int n = r.getMetaData().getColumnCount();
        while (r.next()) {
          StringBuilder b = new StringBuilder();
          for (int i = 1; i <= n; i++) {
            b.append(i > 1 ? "|" : "").append(SameRows.normalize(r.getObject(i)));
          }
          rows.add(b.toString());
        }
      }
      return rows;
    }
  }

  @Test
  void sameAsDuckDbAtSeveralPartitionCountsAndBatchSizes() throws Exception {
    List<List<String>> want = new ArrayList<>();
    for (Object[] q : SHARED) {
      want.add(duckdb((String) q[0]));
    }
    int[][] shapes = {{1, 8192}, {3, 16}, {8, 64}};
    for (int[] shape : shapes) {
      try (SessionContext ctx = session(shape[0], shape[1], true)) {
        for (int i = 0; i < SHARED.size(); i++) {
          String sql = (String) SHARED.get(i)[0];
          SameRows.same(
              want.get(i), SameRows.quiver(ctx, sql), shape[0] + "/" + shape[1] + ": " + sql);
        }
      }
    }
  }

  @Test
  void explainShowsTheSharedNodeOnceAndAnalyzeShowsItRanOnce() {
    for (Object[] q : SHARED) {
      String sql = (String) q[0];
      int readers = (Integer) q[1];
      if (readers == 0) {
        continue;
      }
      try (SessionContext ctx = session(4, 8192, true)) {
        String plan = String.join("\n", SameRows.quiver(ctx, "EXPLAIN " + sql));
        assertThat(plan).as(sql).contains("SharedSubplanExec: id=1, readers=" + readers + " [");
        assertThat(count(plan, "SharedSubplanExec: id=1, readers=" + readers + " (shown above)"))
            .as(plan)
            .isEqualTo(readers - 1);
        if (sql.contains("k < 0")) {
          continue;
        }
        String analyzed = String.join("\n", SameRows.quiver(ctx, "EXPLAIN ANALYZE " + sql));
        // Each partition of the shared input ran once: its readers took every row it produced.
        Matcher m =
            Pattern.compile(
                    "SharedSubplanExec: id=1, readers=\\d+ \\[partitions=(\\d+)\\]"
                        + " metrics=\\[output_rows=(\\d+).*input_executions=(\\d+)")
                .matcher(analyzed);
        assertThat(m.find()).as(analyzed).isTrue();
        assertThat(Long.parseLong(m.group(3))).as(analyzed).isEqualTo(Long.parseLong(m.group(1)));
      }
      try (SessionContext ctx = session(4, 8192, false)) {
        assertThat(String.join("\n", SameRows.quiver(ctx, "EXPLAIN " + sql)))
            .doesNotContain("SharedSubplanExec");
      }
    }
  }

  @Test
  void volatileSubplansAreComputedByEachReader() {
    AtomicLong calls = new AtomicLong();
    ScalarUdf counter =
        new ScalarUdf() {
          @Override
          public String name() {
            return "next_number";
          }

          @Override
          public List<ArrowType> argumentTypes() {
            return List.of(new ArrowType.Int(64, true));
          }

          @Override
          public ArrowType returnType() {
            return new ArrowType.Int(64, true);
          }

          @Override
          public FieldVector invoke(
              List<FieldVector> arguments, int rowCount, BufferAllocator allocator) {
            BigIntVector out = new BigIntVector("n", allocator);
            out.allocateNew(rowCount);
            for (int i = 0; i < rowCount; i++) {
              out.set(i, calls.incrementAndGet());
            }
            out.setValueCount(rowCount);
            return out;
          }
        };
    String sql =
        "WITH r AS (SELECT g, SUM(next_number(k)) AS x FROM t GROUP BY g)"
            + " SELECT COUNT(*) FROM r a JOIN r b ON a.g = b.g AND a.x = b.x";
    try (SessionContext ctx = session(2, 8192, true)) {
      ctx.registerUdf(counter);
      assertThat(String.join("\n", SameRows.quiver(ctx, "EXPLAIN " + sql)))
          .doesNotContain("SharedSubplanExec");
      calls.set(0);
      // Each copy numbers all 1,000 rows, so no group's sum is the same in both.
      assertThat(SameRows.quiver(ctx, sql)).containsExactly("0");
      assertThat(calls.get()).isEqualTo(2000);
    }
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      n++;
    }
    return n;
  }
}
