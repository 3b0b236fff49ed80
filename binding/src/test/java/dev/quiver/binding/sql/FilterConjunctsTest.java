package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A filter evaluates a conjunction a conjunct at a time, cheapest first, compacting selective
 * batches: the rows kept, and which queries fail, must be those of the predicate as written.
 */
@Timeout(120)
class FilterConjunctsTest {
  private static final int ROWS = 3000;

  // Row i: x = i % 7 (NULL when i % 11 = 0), y = i % 5, s = 't<i>' when i % 7 = 0 (so x = 0 only
  // where s is not NULL and does not start with 's'), else NULL when i % 13 = 0, else 's<i % 17>'.
  private static Integer x(int i) {
    return i % 11 == 0 ? null : i % 7;
  }

  private static int y(int i) {
    return i % 5;
  }

  private static String s(int i) {
    if (i % 7 == 0) {
      return "t" + i;
    }
    return i % 13 == 0 ? null : "s" + (i % 17);
  }

  private static SessionContext context(int partitions, int batchSize) {
    SessionContext ctx =
        new SessionContext(
            new SessionConfig().withTargetPartitions(partitions).withBatchSize(batchSize));
    ctx.sql("create table t (id int not null, x int, y int not null, s varchar)");
    StringBuilder values = new StringBuilder("insert into t values ");
    for (int i = 0; i < ROWS; i++) {
      Integer x = x(i);
      String s = s(i);
      values
          .append(i == 0 ? "" : ", ")
          .append('(')
          .append(i)
          .append(", ")
          .append(x == null ? "null" : x.toString())
          .append(", ")
          .append(y(i))
          .append(", ")
          .append(s == null ? "null" : "'" + s + "'")
          .append(')');
    }
    ctx.sql(values.toString());
    return ctx;
  }

  @ParameterizedTest
  @CsvSource({"1, 7", "3, 7", "1, 1024", "3, 1024"})
  void conjunctionsKeepExactlyTheRowsOfThePredicateAsWritten(int partitions, int batchSize) {
    try (SessionContext ctx = context(partitions, batchSize)) {
      // A selective cheap conjunct first, an expensive LIKE on the rows it keeps.
      check(ctx, "y = 1 and s like '%3'", i -> y(i) == 1 && s(i) != null && s(i).endsWith("3"));
      // Written expensive-first: evaluated cheapest first, same rows.
      check(
          ctx,
          "s like 's1%' and y <> 4 and x > 2",
          i -> s(i) != null && s(i).startsWith("s1") && y(i) != 4 && x(i) != null && x(i) > 2);
      // Four conjuncts with NULLs, compacting more than once.
      check(
          ctx,
          "x > 2 and s is not null and y <> 4 and id % 2 = 0",
          i -> x(i) != null && x(i) > 2 && s(i) != null && y(i) != 4 && i % 2 == 0);
      // Nested ANDs, and an OR that stays one conjunct.
      check(
          ctx,
          "(x = 1 and (y = 2 and s <> 's5')) and (id < 100 or id > 2900)",
          i ->
              x(i) != null
                  && x(i) == 1
                  && y(i) == 2
                  && s(i) != null
                  && !s(i).equals("s5")
                  && (i < 100 || i > 2900));
      // Nothing passes.
      check(ctx, "y = 1 and x = 0 and s like 's%'", i -> false);
    }
  }

  @ParameterizedTest
  @CsvSource({"1, 7", "3, 1024"})
  void aConjunctGuardedByAnEarlierOneRaisesNothingWhateverTheOrder(int partitions, int batchSize) {
    try (SessionContext ctx = context(partitions, batchSize)) {
      // The guard is also the cheapest: the division runs after it.
      check(ctx, "x <> 0 and 70 / x > 20", i -> x(i) != null && x(i) != 0 && 70 / x(i) > 20);
      // The guard is a LIKE, which costs more than the division: evaluated first, the division
      // divides by zero (x = 0 only where s starts with 't'), and the predicate as written runs.
      check(
          ctx,
          "s like 's%' and 70 / x > 20",
          i -> s(i) != null && s(i).startsWith("s") && x(i) != null && 70 / x(i) > 20);
    }
  }

  @ParameterizedTest
  @CsvSource({"1, 7", "3, 1024"})
  void aFilterEmitsOnlyTheColumnsReadAboveItInTheirOrder(int partitions, int batchSize) {
    try (SessionContext ctx = context(partitions, batchSize)) {
      // x and y are only read by the condition: the filter emits s and id, renamed above.
      String sql = "select s as label, id from t where y = 1 and x > 2 and s like 's%'";
      assertThat(ctx.sql(sql).explain()).contains("projection=[s, id]");
      List<String> want = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        if (y(i) == 1 && x(i) != null && x(i) > 2 && s(i) != null && s(i).startsWith("s")) {
          want.add(s(i) + "/" + i);
        }
      }
      List<String> got = new ArrayList<>();
      List<VectorSchemaRoot> batches = ctx.sql(sql + " order by id").collect();
      try {
        for (VectorSchemaRoot b : batches) {
          assertThat(b.getSchema().getFields()).hasSize(2);
          assertThat(b.getSchema().getFields().get(0).getName()).isEqualTo("label");
          for (int r = 0; r < b.getRowCount(); r++) {
            got.add(b.getVector(0).getObject(r) + "/" + b.getVector(1).getObject(r));
          }
        }
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
      assertThat(got).isEqualTo(want);
    }
  }

  private static void check(SessionContext ctx, String where, IntPredicate expected) {
    List<Integer> want = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      if (expected.test(i)) {
        want.add(i);
      }
    }
    List<Integer> got = new ArrayList<>();
    List<VectorSchemaRoot> batches =
        ctx.sql("select id from t where " + where + " order by id").collect();
    try {
      for (VectorSchemaRoot b : batches) {
        FieldVector v = b.getVector(0);
        for (int r = 0; r < b.getRowCount(); r++) {
          got.add((Integer) v.getObject(r));
        }
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    assertThat(got).as(where).isEqualTo(want);
  }
}
