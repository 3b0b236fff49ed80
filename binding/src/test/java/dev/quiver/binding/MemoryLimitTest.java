package dev.quiver.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * An operator that cannot spill fails with ResourcesExhaustedException instead of an OOM, and
 * the session keeps working. (Spilling sorts and aggregations are tested per operator in
 * SortExecTest and HashAggregateExecTest.)
 */
@Timeout(300)
class MemoryLimitTest {
  private static final long ROWS = 4_000_000;
  private static final long LIMIT = 40L << 20;

  @TempDir Path spillDir;
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    SessionConfig config = new SessionConfig()
        .withTargetPartitions(2)
        .withMemoryLimit(LIMIT)
        .withSpillDirectory(spillDir);
    ctx = new SessionContext(config);
    Schema schema = new Schema(List.of(
        Field.nullable("k", new ArrowType.Int(64, true)),
        Field.nullable("v", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
    // 4M rows * 16 bytes = 64 MB of input, above the 40 MB limit.
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
  void joinWhoseBuildSideDoesNotFitFailsWithResourcesExhausted() {
    DataFrame df = ctx.sql("SELECT count(*) FROM t a JOIN t b ON a.k = b.k");
    assertThatThrownBy(df::collect)
        .isInstanceOf(ResourcesExhaustedException.class)
        .hasMessageContaining("memory");
    // The session still works after the failure.
    List<VectorSchemaRoot> ok = ctx.sql("SELECT count(*) FROM t").collect();
    try {
      assertThat(((BigIntVector) ok.get(0).getVector(0)).get(0)).isEqualTo(ROWS);
    } finally {
      ok.forEach(VectorSchemaRoot::close);
    }
  }
}
