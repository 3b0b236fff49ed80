package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every statement's result can be collected, streamed, shown and counted, including statements
 * without rows (regression: CREATE TABLE, SET, CREATE VIEW, DROP TABLE and DROP VIEW results threw
 * ArrayIndexOutOfBoundsException from Calcite's field trimmer).
 */
@Timeout(60)
class StatementResultTest {
  @TempDir Path dir;
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(3));
    ctx.sql("CREATE TABLE src(x INTEGER)");
    ctx.sql("INSERT INTO src VALUES (1), (2)");
    ctx.sql("SELECT x FROM src").writeParquet(dir.resolve("p").toString());
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  private String prepare(String statement) {
    if (statement.startsWith("DROP TABLE")) {
      ctx.sql("CREATE TABLE t(x INTEGER)");
    } else if (statement.startsWith("DROP VIEW")) {
      ctx.sql("CREATE VIEW v AS SELECT 1 AS y");
    }
    return statement.replace("$DIR", dir.resolve("p").toString());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "CREATE TABLE t(x INTEGER)",
        "CREATE TABLE IF NOT EXISTS src(x INTEGER)",
        "SET quiver.execution.batch_size = 100",
        "SET quiver.parquet.row_group_reader = false",
        "CREATE VIEW v AS SELECT 1 AS y",
        "DROP TABLE t",
        "DROP TABLE IF EXISTS nothing_here",
        "DROP VIEW v",
        "CREATE EXTERNAL TABLE e STORED AS PARQUET LOCATION '$DIR'"
      })
  void statementsWithoutRowsHaveAnEmptyResult(String statement) throws Exception {
    DataFrame df = ctx.sql(prepare(statement));
    assertThat(df.schema().getFields()).isEmpty();
    List<VectorSchemaRoot> batches = df.collect();
    try {
      assertThat(batches.stream().mapToInt(VectorSchemaRoot::getRowCount).sum()).isZero();
      batches.forEach(b -> assertThat(b.getSchema()).isEqualTo(df.schema()));
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    assertThat(df.count()).isZero();
    assertThat(((DataFrameImpl) df).showString(20)).contains("0 rows");
    try (ArrowReader reader = df.executeStream()) {
      long rows = 0;
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
      assertThat(rows).isZero();
    }
    df.show();
    assertThat(df.explain()).contains("Physical plan:");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "INSERT INTO src VALUES (3), (4)",
        "CREATE TABLE t2 AS SELECT x FROM src WHERE x > 0"
      })
  void statementsThatChangeRowsReturnTheirCount(String statement) {
    DataFrame df = ctx.sql(statement);
    assertThat(df.count()).isEqualTo(1);
    List<VectorSchemaRoot> batches = df.collect();
    try {
      assertThat(batches).hasSize(1);
      assertThat(batches.get(0).getSchema()).isEqualTo(df.schema());
      assertThat(batches.get(0).getVector("count").getObject(0)).isEqualTo(2L);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }
}
