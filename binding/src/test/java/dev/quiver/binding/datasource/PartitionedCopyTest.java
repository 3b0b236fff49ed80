package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code COPY ... TO 'dir' (PARTITION_BY (...))} writes the Hive folders DuckDB writes (same folder
 * names, partition columns only in them, NULL as {@code NULL}, the same error for a folder that is
 * not empty), DuckDB reads them back as it reads its own, and Quiver reads both through globs
 * ({@code read_parquet('dir/**}{@code /*.parquet', hive_partitioning = true)}, {@code FROM
 * 'dir/*}{@code /*}{@code /*.parquet'}) with the partition columns, checked against DuckDB.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public class PartitionedCopyTest {
  @TempDir Path tmp;

  /** The ways to read table events from a partitioned folder {@code dir}, as Quiver reads them. */
  public static List<String> globReads(Path dir) {
    return List.of(
        "SELECT * FROM read_parquet('" + dir + "/**/*.parquet', hive_partitioning = true)",
        "SELECT * FROM read_parquet('" + dir + "/*/*/*.parquet')",
        "SELECT * FROM '" + dir + "/**/*.parquet'");
  }

  /** Quiver writes {@code events} of DuckDB's folder {@code src} partitioned into {@code out}. */
  public static long copyPartitioned(SessionContext ctx, Path src, Path out, String format) {
    SameRows.quiver(
        ctx,
        "CREATE OR REPLACE VIEW source AS SELECT * FROM read_parquet('" + src + "/**/*.parquet')");
    return Long.parseLong(
        SameRows.quiver(
                ctx,
                "COPY (SELECT id, v, cat, dt FROM source) TO '"
                    + out
                    + "' (FORMAT "
                    + format
                    + ", PARTITION_BY (cat, dt))")
            .get(0));
  }

  /** The files below {@code dir}, relative, sorted. */
  public static List<String> files(Path dir) throws Exception {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile)
          .map(p -> dir.relativize(p).toString().replace('\\', '/'))
          .sorted()
          .toList();
    }
  }

  @Test
  void copyPartitionByWritesDuckDbsFoldersAndReadsBackThroughGlobs() throws Exception {
    Path duck = HivePartitionTest.write(tmp);
    Path out = tmp.resolve("quiver-events");
    try (SessionContext ctx = new SessionContext()) {
      assertThat(copyPartitioned(ctx, duck, out, "PARQUET")).isEqualTo(2000);
    }
    // The same folders and file names as DuckDB's (cat=NULL included), the values only there.
    assertThat(files(out)).isEqualTo(files(duck)).contains("cat=NULL/dt=2026-01-02/data_0.parquet");
    String oneFile = out.resolve("cat=a/dt=2026-01-01/data_0.parquet").toString();
    assertThat(
            SameRows.duckdb(
                "f",
                "SELECT * FROM read_parquet('" + oneFile + "', hive_partitioning = false)",
                "SELECT column_name FROM (DESCRIBE f)"))
        .containsExactly("id", "v");
    // DuckDB reads Quiver's folder as its own.
    for (String sql : HivePartitionTest.QUERIES) {
      SameRows.same(HivePartitionTest.duckdb(duck, sql), HivePartitionTest.duckdb(out, sql), sql);
    }
    // Quiver reads both folders through globs as DuckDB does, at several partition counts.
    for (int partitions : new int[] {1, 4}) {
      try (SessionContext ctx =
          new SessionContext(
              new SessionConfig().withTargetPartitions(partitions).withBatchSize(100))) {
        for (Path dir : List.of(duck, out)) {
          // Every form over Quiver's folder, one over DuckDB's.
          for (String read : dir == out ? globReads(dir) : globReads(dir).subList(0, 1)) {
            ctx.sql("CREATE OR REPLACE VIEW events AS " + read);
            for (String sql : HivePartitionTest.QUERIES) {
              SameRows.same(
                  HivePartitionTest.duckdb(duck, sql), HivePartitionTest.quiver(ctx, sql), read);
            }
          }
        }
      }
    }
  }

  @Test
  void partitionTypesAsDuckDbInfersThem() throws Exception {
    Path duck = HivePartitionTest.write(tmp);
    String read =
        "SELECT * FROM read_parquet('" + duck + "/**/*.parquet', hive_partitioning = true)";
    List<String> duckTypes =
        SameRows.duckdb("events", read, "SELECT column_name, column_type FROM (DESCRIBE events)");
    try (SessionContext ctx = new SessionContext()) {
      ctx.sql("CREATE VIEW events AS " + read);
      List<String> ours = new ArrayList<>();
      for (var f : ctx.sql("SELECT * FROM events").schema().getFields()) {
        ours.add(f.getName() + "|" + f.getType());
      }
      // The file's columns, then the folders' as DuckDB types them: cat VARCHAR, dt DATE.
      assertThat(duckTypes).hasSize(4).endsWith("cat|VARCHAR", "dt|DATE");
      assertThat(ours).hasSize(4).endsWith("cat|Utf8", "dt|Date(DAY)");
      assertThat(ours.subList(0, 2).stream().map(c -> c.substring(0, c.indexOf('|'))))
          .containsExactly("id", "v");
      // Without hive_partitioning the folders give no columns, as in DuckDB.
      assertThat(
              ctx.sql(
                      "SELECT * FROM read_parquet('"
                          + duck
                          + "/**/*.parquet', hive_partitioning = false)")
                  .schema()
                  .getFields())
          .hasSize(2);
    }
  }

  @Test
  void folderNamesEscapedAsDuckDbEscapesThem() throws Exception {
    String query =
        "SELECT i::BIGINT AS id, CASE WHEN i % 3 = 0 THEN NULL ELSE 'x/y=z :' || (i % 3)::VARCHAR"
            + " END AS s, TIMESTAMP '2026-01-01 10:00:00' AS ts, i % 2 = 0 AS b FROM range(6) t(i)";
    Path src = tmp.resolve("src.parquet");
    Path duck = tmp.resolve("duck");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute("COPY (" + query + ") TO '" + src + "' (FORMAT PARQUET)");
      s.execute(
          "COPY (SELECT * FROM '"
              + src
              + "') TO '"
              + duck
              + "' (FORMAT PARQUET, PARTITION_BY (s, ts, b))");
    }
    Path out = tmp.resolve("quiver");
    try (SessionContext ctx = new SessionContext()) {
      SameRows.quiver(
          ctx,
          "COPY (SELECT * FROM '"
              + src
              + "') TO '"
              + out
              + "' (FORMAT PARQUET, PARTITION_BY (s, ts, b))");
      assertThat(files(out))
          .isEqualTo(files(duck))
          .contains("s=x%2Fy%3Dz%20%3A1/ts=2026-01-01%2010%3A00%3A00/b=false/data_0.parquet");
      ctx.sql("CREATE VIEW t AS SELECT * FROM read_parquet('" + out + "/**/*.parquet')");
      assertThat(HivePartitionTest.quiver(ctx, "SELECT count(*) FROM t WHERE s = 'x/y=z :2'"))
          .containsExactly("2");
    }
  }

  @Test
  void aFolderThatIsNotEmptyFailsAsInDuckDbUnlessOverwriteIsAsked() throws Exception {
    Path duck = HivePartitionTest.write(tmp);
    Path out = tmp.resolve("out");
    String duckError;
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT 1 AS id, 'z' AS cat) TO '"
              + out
              + "' (FORMAT PARQUET, PARTITION_BY (cat))");
      try {
        s.execute(
            "COPY (SELECT 1 AS id, 'z' AS cat) TO '"
                + out
                + "' (FORMAT PARQUET, PARTITION_BY (cat))");
        throw new AssertionError("DuckDB wrote into a folder that is not empty");
      } catch (java.sql.SQLException e) {
        duckError = e.getMessage();
      }
    }
    assertThat(duckError).contains("is not empty! Enable OVERWRITE option to overwrite files");
    try (SessionContext ctx = new SessionContext()) {
      assertThatThrownBy(() -> copyPartitioned(ctx, duck, out, "PARQUET"))
          .hasMessageContaining(
              "Directory \"" + out + "\" is not empty! Enable OVERWRITE option to overwrite files");
      assertThat(files(out)).containsExactly("cat=z/data_0.parquet");
      // OVERWRITE_OR_IGNORE adds the new folders beside what is there.
      SameRows.quiver(
          ctx,
          "CREATE OR REPLACE VIEW source AS SELECT * FROM read_parquet('"
              + duck
              + "/**/*.parquet')");
      SameRows.quiver(
          ctx,
          "COPY (SELECT id, v, cat FROM source) TO '"
              + out
              + "' (FORMAT PARQUET, PARTITION_BY (cat), OVERWRITE_OR_IGNORE)");
      assertThat(files(out))
          .containsExactly(
              "cat=NULL/data_0.parquet",
              "cat=a/data_0.parquet",
              "cat=b/data_0.parquet",
              "cat=c/data_0.parquet",
              "cat=z/data_0.parquet");
      // OVERWRITE replaces the folder's contents.
      SameRows.quiver(
          ctx,
          "COPY (SELECT id, cat FROM source WHERE cat = 'a') TO '"
              + out
              + "' (FORMAT PARQUET, PARTITION_BY (cat), OVERWRITE)");
      assertThat(files(out)).containsExactly("cat=a/data_0.parquet");
      assertThat(
              HivePartitionTest.quiver(
                  ctx, "SELECT count(*), min(cat) FROM '" + out + "/*/*.parquet'"))
          .containsExactly("500|a");
    }
  }

  @Test
  void csvPartitionedAsDuckDbReadsIt() throws Exception {
    Path duck = HivePartitionTest.write(tmp);
    Path out = tmp.resolve("csv");
    try (SessionContext ctx = new SessionContext()) {
      assertThat(copyPartitioned(ctx, duck, out, "CSV")).isEqualTo(2000);
      assertThat(files(out)).contains("cat=NULL/dt=2026-01-02/data_0.csv");
      // Quiver reads the CSV files back through a glob (without their partition columns).
      assertThat(
              HivePartitionTest.quiver(
                  ctx, "SELECT count(*), sum(id) FROM read_csv('" + out + "/*/*/*.csv')"))
          .containsExactly("2000|1999000");
    }
    for (String sql : HivePartitionTest.QUERIES) {
      SameRows.same(
          HivePartitionTest.duckdb(duck, sql),
          SameRows.duckdb(
              "events",
              "SELECT * FROM read_csv('" + out + "/**/*.csv', hive_partitioning = true)",
              sql),
          sql);
    }
  }

  @Test
  void globsSayWhenNothingMatches() throws Exception {
    Path duck = HivePartitionTest.write(tmp);
    try (SessionContext ctx = new SessionContext()) {
      assertThatThrownBy(() -> SameRows.quiver(ctx, "SELECT * FROM '" + duck + "/*/*.parquet'"))
          .hasMessageContaining("No Parquet files match " + duck + "/*/*.parquet");
      assertThatThrownBy(
              () ->
                  SameRows.quiver(
                      ctx,
                      "SELECT * FROM read_parquet('"
                          + duck
                          + "/**/*.parquet', binary_as_string = true)"))
          .hasMessageContaining("hive_partitioning");
    }
  }
}
