package dev.quiver.examples.tpch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The 22 TPC-H queries with the specification's validation substitution parameters, loaded from the
 * resources {@code tpch/q01.sql} .. {@code tpch/q22.sql}.
 */
public final class TpchQueries {
  /** Number of TPC-H queries. */
  public static final int COUNT = 22;

  // Output columns named by each query's top-level ORDER BY, in order.
  private static final Map<Integer, List<String>> ORDER_BY =
      Map.ofEntries(
          Map.entry(1, List.of("l_returnflag", "l_linestatus")),
          Map.entry(2, List.of("s_acctbal", "n_name", "s_name", "p_partkey")),
          Map.entry(3, List.of("revenue", "o_orderdate")),
          Map.entry(4, List.of("o_orderpriority")),
          Map.entry(5, List.of("revenue")),
          Map.entry(7, List.of("supp_nation", "cust_nation", "l_year")),
          Map.entry(8, List.of("o_year")),
          Map.entry(9, List.of("nation", "o_year")),
          Map.entry(10, List.of("revenue")),
          Map.entry(11, List.of("value")),
          Map.entry(12, List.of("l_shipmode")),
          Map.entry(13, List.of("custdist", "c_count")),
          Map.entry(15, List.of("s_suppkey")),
          Map.entry(16, List.of("supplier_cnt", "p_brand", "p_type", "p_size")),
          Map.entry(18, List.of("o_totalprice", "o_orderdate")),
          Map.entry(20, List.of("s_name")),
          Map.entry(21, List.of("numwait", "s_name")),
          Map.entry(22, List.of("cntrycode")));

  private TpchQueries() {}

  /** Query {@code number} (1 to 22). */
  public static TpchQuery get(int number) {
    if (number < 1 || number > COUNT) {
      throw new IllegalArgumentException("TPC-H has queries 1 to 22, not " + number);
    }
    String resource = String.format("tpch/q%02d.sql", number);
    try (InputStream in = TpchQueries.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("Missing resource " + resource + " on the classpath");
      }
      String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      return new TpchQuery(number, sql, ORDER_BY.getOrDefault(number, List.of()));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + resource, e);
    }
  }

  /** All 22 queries in order. */
  public static List<TpchQuery> all() {
    List<TpchQuery> queries = new ArrayList<>(COUNT);
    for (int i = 1; i <= COUNT; i++) {
      queries.add(get(i));
    }
    return queries;
  }

  /** The queries with the given numbers, in the given order. */
  public static List<TpchQuery> select(List<Integer> numbers) {
    List<TpchQuery> queries = new ArrayList<>(numbers.size());
    for (int n : numbers) {
      queries.add(get(n));
    }
    return queries;
  }
}
