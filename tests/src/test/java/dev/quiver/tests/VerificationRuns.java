package dev.quiver.tests;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DynamicTest;

/**
 * Verification runs: every TPC-H query and every corpus query on Quiver under many execution shapes
 * (target partitions 1, 2, 3 and 8; batch sizes 1, 7 and the default), each result compared with
 * DuckDB's. Wrong answers hide in parallel paths and batch boundaries, which one shape never
 * exercises. {@link VerificationRunTest} runs a bounded rotation in the default suite; {@link
 * VerificationRunSlowTest} runs every query under every shape, repeatedly.
 */
final class VerificationRuns implements AutoCloseable {
  static final int[] PARTITIONS = {1, 2, 3, 8};
  static final int[] BATCH_SIZES = {1, 7, new SessionConfig().batchSize()};
  static final double SCALE = 0.01;
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(120);

  /** A query, how its rows are ordered, and the statements run before and after it. */
  record Query(
      String name,
      String sql,
      SortSpecSource sort,
      List<SqlCorpus.Step> before,
      List<SqlCorpus.Step> after,
      String reference) {
    Query(String name, String sql, SortSpecSource sort) {
      this(name, sql, sort, List.of(), List.of(), sql);
    }
  }

  /** How a query's order is derived from the reference result. */
  interface SortSpecSource {
    SortSpec of(QueryResult reference);
  }

  /** One execution shape. */
  record Shape(int partitions, int batchSize) {
    @Override
    public String toString() {
      return "partitions=" + partitions + ", batch_size=" + batchSize;
    }
  }

  private final QueryThread queryThread = new QueryThread();
  private final Path dir = TpchFixture.data(SCALE);
  private final Map<String, QueryResult> expected = new HashMap<>();
  private final Map<Shape, RowEngine> engines = new HashMap<>();
  private RowEngine reference;

  /** Every query: the 22 TPC-H queries, then the corpus. */
  static List<Query> queries() {
    List<Query> out = new ArrayList<>();
    for (TpchQuery q : TpchQueries.all()) {
      out.add(new Query(q.name(), q.sql(), ref -> Differential.sortOf(q.orderBy(), ref)));
    }
    for (SqlCorpus.Entry e : SqlCorpus.load("sql-corpus.sql")) {
      out.add(
          new Query(
              e.name(),
              e.sql(),
              ref -> Differential.sortOf(e.sql(), ref),
              e.before(),
              e.after(),
              e.reference()));
    }
    return out;
  }

  /** Every shape. */
  static List<Shape> shapes() {
    List<Shape> out = new ArrayList<>();
    for (int p : PARTITIONS) {
      for (int b : BATCH_SIZES) {
        out.add(new Shape(p, b));
      }
    }
    return out;
  }

  /** A test that runs {@code q} under {@code shape} ({@code run} numbers repeats). */
  DynamicTest test(Query q, Shape shape, int run) {
    String label = q.name() + " [" + shape + (run > 0 ? ", run " + (run + 1) : "") + "]";
    return DynamicTest.dynamicTest(
        label,
        () -> queryThread.run(QUERY_TIMEOUT, label, () -> check(q, shape), () -> drop(shape)));
  }

  private void check(Query q, Shape shape) {
    if (reference == null) {
      reference = Differential.reference(dir);
    }
    RowEngine engine = engines.computeIfAbsent(shape, this::open);
    String label = q.name() + " with " + shape;
    try {
      // Statements around the query (tables it creates, settings) run on both engines each time.
      for (SqlCorpus.Step step : q.before()) {
        SqlCorpus.run(step, reference, engine, label);
      }
      QueryResult want =
          q.before().isEmpty()
              ? expected.computeIfAbsent(q.name(), n -> reference.query(q.reference()))
              : reference.query(q.reference());
      QueryResult got = engine.query(q.sql());
      Differential.check(label, q.sql(), want, got, q.sort().of(want));
    } finally {
      for (SqlCorpus.Step step : q.after()) {
        SqlCorpus.run(step, reference, engine, label);
      }
    }
  }

  private RowEngine open(Shape shape) {
    SessionConfig config =
        new SessionConfig()
            .withTargetPartitions(shape.partitions())
            .withBatchSize(shape.batchSize());
    return new QuiverRows(new SessionContext(config), dir, "quiver " + shape, () -> {});
  }

  /** Closes an engine whose query timed out; the next query of that shape opens a new one. */
  private void drop(Shape shape) {
    RowEngine engine = engines.remove(shape);
    if (engine != null) {
      engine.close();
    }
  }

  @Override
  public void close() {
    queryThread.run(
        Duration.ofSeconds(60),
        "close",
        () -> {
          engines.values().forEach(RowEngine::close);
          engines.clear();
          if (reference != null) {
            reference.close();
          }
        });
    queryThread.close();
  }
}
