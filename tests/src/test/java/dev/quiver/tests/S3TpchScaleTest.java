package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The measurement for the note: the 22 TPC-H queries at a scale factor (default 1, {@code
 * -Dquiver.s3.scale=...}) on one node from local files and from S3 (S3Proxy on loopback, signed
 * requests), in one run: each query's time on both, the ratio of totals, and the bytes each query
 * fetched from S3. Every query runs once untimed on both first (JIT, footers).
 */
@Tag("slow")
@Timeout(value = 60, unit = TimeUnit.MINUTES)
class S3TpchScaleTest {
  @Test
  void localFilesAgainstS3() throws Exception {
    double scale = Double.parseDouble(System.getProperty("quiver.s3.scale", "1"));
    Path data = TpchFixture.data(scale);
    try (S3ProxyServer s3 = S3ProxyServer.start()) {
      s3.createBucket("tpch");
      s3.put(data, "tpch", "sf");
      int partitions = Runtime.getRuntime().availableProcessors();
      try (SessionContext local =
              new SessionContext(new SessionConfig().withTargetPartitions(partitions));
          SessionContext remote =
              new SessionContext(
                  s3.configure(new SessionConfig().withTargetPartitions(partitions)))) {
        new QuiverRows(local, data, "local", () -> {});
        new QuiverRows(remote, "s3://tpch/sf", "s3", () -> {});
        StringBuilder report = new StringBuilder();
        report.append(
            String.format(
                Locale.ROOT,
                "TPC-H SF %s, one node, %d partitions%n%-5s %10s %10s %7s %14s%n",
                scale,
                partitions,
                "query",
                "local ms",
                "s3 ms",
                "ratio",
                "s3 bytes"));
        long localTotal = 0;
        long s3Total = 0;
        long bytesTotal = 0;
        for (TpchQuery q : TpchQueries.all()) {
          run(local, q.sql());
          run(remote, q.sql());
          long t0 = System.nanoTime();
          long rowsLocal = run(local, q.sql());
          long t1 = System.nanoTime();
          long before = ObjectStores.fetchedBytes();
          long rowsS3 = run(remote, q.sql());
          long t2 = System.nanoTime();
          long fetched = ObjectStores.fetchedBytes() - before;
          assertThat(rowsS3).as(q.name()).isEqualTo(rowsLocal);
          long l = (t1 - t0) / 1_000_000;
          long r = (t2 - t1) / 1_000_000;
          localTotal += l;
          s3Total += r;
          bytesTotal += fetched;
          report.append(
              String.format(
                  Locale.ROOT,
                  "%-5s %10d %10d %7.2f %14d%n",
                  q.name(),
                  l,
                  r,
                  (double) r / Math.max(1, l),
                  fetched));
        }
        report.append(
            String.format(
                Locale.ROOT,
                "%-5s %10d %10d %7.2f %14d%n",
                "total",
                localTotal,
                s3Total,
                (double) s3Total / Math.max(1, localTotal),
                bytesTotal));
        System.out.println(report);
        java.nio.file.Files.writeString(
            Path.of("target", "s3-tpch-scale.txt").toAbsolutePath(), report.toString());
      }
    }
  }

  private static long run(SessionContext ctx, String sql) {
    long rows = 0;
    for (VectorSchemaRoot b : ctx.sql(sql).collect()) {
      try (b) {
        rows += b.getRowCount();
      }
    }
    return rows;
  }
}
