package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Parquet file rewritten in place (same path, same length, new content) is read fresh: the footer
 * cache never answers for the old content, locally (even when the rewrite keeps the modification
 * time, as two writes within the file system's timestamp granularity do) and in S3 (S3Proxy). A
 * registered S3 table whose object is replaced after registration fails with a typed error instead
 * of reading the new bytes through the old footer. Answers checked against DuckDB.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RewrittenFilesTest {
  @TempDir static Path tmp;
  private byte[] first;
  private byte[] second;

  private static final String QUERY =
      "SELECT count(*) AS n, sum(v) AS s FROM %s WHERE v >= 1000000";

  /** Two files of the same length: v = 0..999 and v = 1000000..1000999 (one row group each). */
  @BeforeAll
  void writeFiles() throws Exception {
    Path a = tmp.resolve("a.parquet");
    Path b = tmp.resolve("b.parquet");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT i::BIGINT AS v FROM range(1000) t(i)) TO '"
              + a
              + "' (FORMAT PARQUET, COMPRESSION UNCOMPRESSED)");
      s.execute(
          "COPY (SELECT (i + 1000000)::BIGINT AS v FROM range(1000) t(i)) TO '"
              + b
              + "' (FORMAT PARQUET, COMPRESSION UNCOMPRESSED)");
    }
    first = Files.readAllBytes(a);
    second = Files.readAllBytes(b);
    assertThat(second).as("the two versions have the same length").hasSize(first.length);
  }

  private static List<String> duckdb(String file) throws Exception {
    return SameRows.duckdb(
        "f", "SELECT * FROM read_parquet('" + file + "')", String.format(QUERY, "f"));
  }

  @Test
  void localFileRewrittenInPlaceWithTheSameTimestampIsReadFresh() throws Exception {
    Path file = Files.createDirectories(tmp.resolve("local")).resolve("f.parquet");
    Files.write(file, first);
    FileTime written = Files.getLastModifiedTime(file);
    String from = "read_parquet('" + file + "')";
    try (SessionContext ctx = new SessionContext()) {
      assertThat(SameRows.quiver(ctx, String.format(QUERY, from))).containsExactly("0|NULL");
      ctx.registerParquet("before", file.toString());
      // Same inode, same length, same modification time: only the bytes differ.
      Files.write(file, second, StandardOpenOption.TRUNCATE_EXISTING);
      Files.setLastModifiedTime(file, written);
      assertThat(Files.size(file)).isEqualTo(first.length);
      List<String> want = duckdb(file.toString());
      assertThat(want).containsExactly("1000|1000499500");
      assertThat(SameRows.quiver(ctx, String.format(QUERY, from))).isEqualTo(want);
      ctx.registerParquet("after", file.toString());
      assertThat(SameRows.quiver(ctx, String.format(QUERY, "after"))).isEqualTo(want);
    }
  }

  @Test
  void s3ObjectRewrittenIsReadFreshAndAReplacedObjectFailsTyped() throws Exception {
    Path a = tmp.resolve("s3a.parquet");
    Path b = tmp.resolve("s3b.parquet");
    Files.write(a, first);
    Files.write(b, second);
    try (S3ProxyServer s3 = S3ProxyServer.start()) {
      s3.createBucket("lake");
      String uri = s3.put(a, "lake", "rw/f.parquet");
      String from = "read_parquet('" + uri + "')";
      for (int partitions : new int[] {1, 3}) {
        try (SessionContext ctx =
            new SessionContext(
                s3.configure(new SessionConfig().withTargetPartitions(partitions)))) {
          s3.put(a, "lake", "rw/f.parquet");
          assertThat(SameRows.quiver(ctx, String.format(QUERY, from)))
              .isEqualTo(duckdb(a.toString()));
          s3.put(b, "lake", "rw/f.parquet");
          assertThat(SameRows.quiver(ctx, String.format(QUERY, from)))
              .as("the rewritten object at " + partitions + " partitions")
              .isEqualTo(duckdb(b.toString()));
          // A table registered on the second content, then the object replaced by the first.
          ctx.registerParquet("t" + partitions, uri);
          s3.put(a, "lake", "rw/f.parquet");
          assertThatThrownBy(() -> SameRows.quiver(ctx, "SELECT sum(v) FROM t" + partitions))
              .isInstanceOf(ObjectStoreException.class)
              .hasMessageContaining(uri)
              .hasMessageContaining("replaced")
              .satisfies(
                  e ->
                      assertThat(((ObjectStoreException) e).reason())
                          .isEqualTo(ObjectStoreException.Reason.INVALID));
          // Registered again, it reads the new content.
          ctx.deregisterTable("t" + partitions);
          ctx.registerParquet("t" + partitions, uri);
          assertThat(SameRows.quiver(ctx, String.format(QUERY, "t" + partitions)))
              .isEqualTo(duckdb(a.toString()));
        }
      }
    }
  }
}
