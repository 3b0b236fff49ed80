package dev.quiver.binding.dataframe;

import static dev.quiver.binding.dataframe.Expr.col;
import static dev.quiver.binding.dataframe.Expr.date;
import static dev.quiver.binding.dataframe.Expr.lit;
import static dev.quiver.binding.dataframe.Expr.sum;

import dev.quiver.binding.SessionContext;
import java.math.BigDecimal;
import java.util.List;

/**
 * TPC-H queries 1, 3, 5, 6 and 10 written with the DataFrame API, next to their SQL text. Each
 * method takes a session whose tables are registered under the TPC-H names (lineitem, orders,
 * customer, supplier, nation, region) and returns the query, not yet run.
 */
public final class TpchDataFrames {
  /** TPC-H Q1 (pricing summary report) as SQL. */
  public static final String Q1_SQL =
      "select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty,"
          + " sum(l_extendedprice) as sum_base_price,"
          + " sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,"
          + " sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,"
          + " avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price,"
          + " avg(l_discount) as avg_disc, count(*) as count_order"
          + " from lineitem"
          + " where l_shipdate <= date '1998-12-01' - interval '90' day"
          + " group by l_returnflag, l_linestatus"
          + " order by l_returnflag, l_linestatus";

  /** TPC-H Q3 (shipping priority) as SQL. */
  public static final String Q3_SQL =
      "select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, o_orderdate,"
          + " o_shippriority"
          + " from customer, orders, lineitem"
          + " where c_mktsegment = 'BUILDING' and c_custkey = o_custkey and l_orderkey = o_orderkey"
          + " and o_orderdate < date '1995-03-15' and l_shipdate > date '1995-03-15'"
          + " group by l_orderkey, o_orderdate, o_shippriority"
          + " order by revenue desc, o_orderdate"
          + " limit 10";

  /** TPC-H Q5 (local supplier volume) as SQL. */
  public static final String Q5_SQL =
      "select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue"
          + " from customer, orders, lineitem, supplier, nation, region"
          + " where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey"
          + " and c_nationkey = s_nationkey and s_nationkey = n_nationkey"
          + " and n_regionkey = r_regionkey and r_name = 'ASIA'"
          + " and o_orderdate >= date '1994-01-01'"
          + " and o_orderdate < date '1994-01-01' + interval '1' year"
          + " group by n_name"
          + " order by revenue desc";

  /** TPC-H Q6 (forecasting revenue change) as SQL. */
  public static final String Q6_SQL =
      "select sum(l_extendedprice * l_discount) as revenue"
          + " from lineitem"
          + " where l_shipdate >= date '1994-01-01'"
          + " and l_shipdate < date '1994-01-01' + interval '1' year"
          + " and l_discount between 0.05 and 0.07 and l_quantity < 24";

  /** TPC-H Q10 (returned item reporting) as SQL. */
  public static final String Q10_SQL =
      "select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, c_acctbal,"
          + " n_name, c_address, c_phone, c_comment"
          + " from customer, orders, lineitem, nation"
          + " where c_custkey = o_custkey and l_orderkey = o_orderkey"
          + " and o_orderdate >= date '1993-10-01'"
          + " and o_orderdate < date '1993-10-01' + interval '3' month"
          + " and l_returnflag = 'R' and c_nationkey = n_nationkey"
          + " group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment"
          + " order by revenue desc"
          + " limit 20";

  private TpchDataFrames() {}

  /** {@code l_extendedprice * (1 - l_discount)}. */
  private static Expr discounted() {
    return col("l_extendedprice").mul(lit(1).sub(col("l_discount")));
  }

  /** TPC-H Q1 (pricing summary report). */
  public static DataFrame q1(SessionContext ctx) {
    return ctx.table("lineitem")
        .filter(col("l_shipdate").ltEq(date("1998-12-01").sub(Expr.intervalDays(90))))
        .aggregate(
            List.of(col("l_returnflag"), col("l_linestatus")),
            List.of(
                sum(col("l_quantity")).alias("sum_qty"),
                sum(col("l_extendedprice")).alias("sum_base_price"),
                sum(discounted()).alias("sum_disc_price"),
                sum(discounted().mul(lit(1).add(col("l_tax")))).alias("sum_charge"),
                Expr.avg(col("l_quantity")).alias("avg_qty"),
                Expr.avg(col("l_extendedprice")).alias("avg_price"),
                Expr.avg(col("l_discount")).alias("avg_disc"),
                Expr.countStar().alias("count_order")))
        .sort(col("l_returnflag").asc(), col("l_linestatus").asc());
  }

  /** TPC-H Q3 (shipping priority). */
  public static DataFrame q3(SessionContext ctx) {
    DataFrame customer = ctx.table("customer").filter(col("c_mktsegment").eq("BUILDING"));
    DataFrame orders = ctx.table("orders").filter(col("o_orderdate").lt(date("1995-03-15")));
    DataFrame lineitem = ctx.table("lineitem").filter(col("l_shipdate").gt(date("1995-03-15")));
    return customer
        .join(orders, JoinType.INNER, List.of("c_custkey"), List.of("o_custkey"))
        .join(lineitem, JoinType.INNER, List.of("o_orderkey"), List.of("l_orderkey"))
        .aggregate(
            List.of(col("l_orderkey"), col("o_orderdate"), col("o_shippriority")),
            List.of(sum(discounted()).alias("revenue")))
        .select(col("l_orderkey"), col("revenue"), col("o_orderdate"), col("o_shippriority"))
        .sort(col("revenue").desc(), col("o_orderdate").asc())
        .limit(10);
  }

  /** TPC-H Q5 (local supplier volume). */
  public static DataFrame q5(SessionContext ctx) {
    DataFrame region = ctx.table("region").filter(col("r_name").eq("ASIA"));
    DataFrame orders =
        ctx.table("orders")
            .filter(
                col("o_orderdate")
                    .gtEq(date("1994-01-01"))
                    .and(col("o_orderdate").lt(date("1994-01-01").add(Expr.intervalYears(1)))));
    return ctx.table("customer")
        .join(orders, JoinType.INNER, List.of("c_custkey"), List.of("o_custkey"))
        .join(ctx.table("lineitem"), JoinType.INNER, List.of("o_orderkey"), List.of("l_orderkey"))
        .join(
            ctx.table("supplier"),
            JoinType.INNER,
            List.of("l_suppkey", "c_nationkey"),
            List.of("s_suppkey", "s_nationkey"))
        .join(ctx.table("nation"), JoinType.INNER, List.of("s_nationkey"), List.of("n_nationkey"))
        .join(region, JoinType.INNER, List.of("n_regionkey"), List.of("r_regionkey"))
        .aggregate(List.of(col("n_name")), List.of(sum(discounted()).alias("revenue")))
        .sort(col("revenue").desc());
  }

  /** TPC-H Q6 (forecasting revenue change). */
  public static DataFrame q6(SessionContext ctx) {
    return ctx.table("lineitem")
        .filter(
            col("l_shipdate")
                .gtEq(date("1994-01-01"))
                .and(col("l_shipdate").lt(date("1994-01-01").add(Expr.intervalYears(1))))
                .and(col("l_discount").between(new BigDecimal("0.05"), new BigDecimal("0.07")))
                .and(col("l_quantity").lt(24)))
        .aggregate(
            List.of(),
            List.of(sum(col("l_extendedprice").mul(col("l_discount"))).alias("revenue")));
  }

  /** TPC-H Q10 (returned item reporting). */
  public static DataFrame q10(SessionContext ctx) {
    DataFrame orders =
        ctx.table("orders")
            .filter(
                col("o_orderdate")
                    .gtEq(date("1993-10-01"))
                    .and(col("o_orderdate").lt(date("1993-10-01").add(Expr.intervalMonths(3)))));
    DataFrame lineitem = ctx.table("lineitem").filter(col("l_returnflag").eq("R"));
    return ctx.table("customer")
        .join(orders, JoinType.INNER, List.of("c_custkey"), List.of("o_custkey"))
        .join(lineitem, JoinType.INNER, List.of("o_orderkey"), List.of("l_orderkey"))
        .join(ctx.table("nation"), JoinType.INNER, List.of("c_nationkey"), List.of("n_nationkey"))
        .aggregate(
            List.of(
                col("c_custkey"),
                col("c_name"),
                col("c_acctbal"),
                col("c_phone"),
                col("n_name"),
                col("c_address"),
                col("c_comment")),
            List.of(sum(discounted()).alias("revenue")))
        .select(
            col("c_custkey"),
            col("c_name"),
            col("revenue"),
            col("c_acctbal"),
            col("n_name"),
            col("c_address"),
            col("c_phone"),
            col("c_comment"))
        .sort(col("revenue").desc())
        .limit(20);
  }
}
