package dev.quiver.examples.tpch;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class TpchDataTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void generatesAllTablesWithSpecRowCountsAndExactDecimals() throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      TpchData.generate(allocator, 0.01, dir);
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
    assertThat(TpchData.isComplete(dir, 0.01)).isTrue();
    Map<String, Long> expected =
        Map.of(
            "lineitem",
            60175L,
            "orders",
            15000L,
            "customer",
            1500L,
            "part",
            2000L,
            "partsupp",
            8000L,
            "supplier",
            100L,
            "nation",
            25L,
            "region",
            5L);
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      for (Map.Entry<String, Long> e : expected.entrySet()) {
        try (ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM read_parquet('" + dir.resolve(e.getKey()) + "/*')")) {
          rs.next();
          assertThat(rs.getLong(1)).as(e.getKey()).isEqualTo(e.getValue());
        }
      }
      try (ResultSet rs =
          s.executeQuery(
              "SELECT typeof(l_extendedprice), typeof(l_orderkey), typeof(l_linenumber),"
                  + " typeof(l_shipdate), typeof(l_comment), sum(l_extendedprice), min(l_shipdate)"
                  + " FROM read_parquet('"
                  + dir.resolve("lineitem")
                  + "/*') GROUP BY ALL")) {
        rs.next();
        assertThat(rs.getString(1)).isEqualTo("DECIMAL(15,2)");
        assertThat(rs.getString(2)).isEqualTo("BIGINT");
        assertThat(rs.getString(3)).isEqualTo("INTEGER");
        assertThat(rs.getString(4)).isEqualTo("DATE");
        assertThat(rs.getString(5)).isEqualTo("VARCHAR");
        assertThat(rs.getBigDecimal(6).scale()).isEqualTo(2);
        assertThat(rs.getBigDecimal(6)).isGreaterThan(BigDecimal.ZERO);
        assertThat(rs.getString(7)).startsWith("1992-01-");
      }
      // Spot check one generated row against the reference generator's first line item.
      try (ResultSet rs =
          s.executeQuery(
              "SELECT l_quantity, l_extendedprice, l_discount, l_tax, l_shipdate::VARCHAR,"
                  + " l_shipmode FROM read_parquet('"
                  + dir.resolve("lineitem")
                  + "/*')"
                  + " WHERE l_orderkey = 1 AND l_linenumber = 1")) {
        rs.next();
        assertThat(rs.getBigDecimal(1)).isEqualByComparingTo("17");
        assertThat(rs.getBigDecimal(2)).isEqualByComparingTo("24710.35");
        assertThat(rs.getBigDecimal(3)).isEqualByComparingTo("0.04");
        assertThat(rs.getBigDecimal(4)).isEqualByComparingTo("0.02");
        assertThat(rs.getString(5)).isEqualTo("1996-03-13");
        assertThat(rs.getString(6)).isEqualTo("TRUCK");
      }
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void skipsTablesAlreadyGenerated() throws Exception {
    TpchData.generate(0.001, dir);
    Path regionFile;
    try (Stream<Path> files = Files.list(dir.resolve("region"))) {
      regionFile = files.findFirst().orElseThrow();
    }
    long before = Files.getLastModifiedTime(regionFile).toMillis();
    Thread.sleep(20);
    TpchData.generate(0.001, dir);
    assertThat(Files.exists(regionFile)).isTrue();
    assertThat(Files.getLastModifiedTime(regionFile).toMillis()).isEqualTo(before);
    // A different scale factor in the same folder regenerates.
    TpchData.generate(0.002, dir);
    assertThat(TpchData.isComplete(dir, 0.002)).isTrue();
  }
}
