package dev.quiver.examples.app;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.util.List;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Application code that knows only the binding's API: it is given a {@link SessionContext} and
 * neither knows nor cares whether queries run in process or on a cluster.
 */
public final class RevenueReport {
  private final SessionContext ctx;

  /** The session comes from whatever module the application installed. */
  @Inject
  public RevenueReport(SessionContext ctx) {
    this.ctx = ctx;
  }

  /** Registers the TPC-H tables the report reads from Parquet folders under {@code dir}. */
  public void registerTpch(String dir) {
    for (String table : List.of("lineitem", "orders", "customer", "nation")) {
      ctx.registerParquet(table, dir + "/" + table);
    }
  }

  /** Number of line items. */
  public long countLineitems() {
    return ctx.table("lineitem").count();
  }

  /** Total discounted revenue per nation for orders of one year, highest first. */
  public DataFrame revenueByNation(int year) {
    return ctx.sql(
        "SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue "
            + "FROM lineitem JOIN orders ON l_orderkey = o_orderkey "
            + "JOIN customer ON o_custkey = c_custkey JOIN nation ON c_nationkey = n_nationkey "
            + "WHERE o_orderdate >= DATE '"
            + year
            + "-01-01' AND o_orderdate < DATE '"
            + (year + 1)
            + "-01-01' GROUP BY n_name ORDER BY revenue DESC");
  }

  /** The revenue of the top nation in {@code year}. */
  public BigDecimal topRevenue(int year) {
    List<VectorSchemaRoot> batches = revenueByNation(year).limit(1).collect();
    try {
      for (VectorSchemaRoot b : batches) {
        if (b.getRowCount() > 0) {
          return ((DecimalVector) b.getVector("revenue")).getObject(0);
        }
      }
      return BigDecimal.ZERO;
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }
}
