package dev.quiver.binding.sql;

import dev.quiver.binding.SessionContext;

/** TPC-H table shapes with scale-factor-1 row counts (no rows), and some of its queries. */
final class Tpch {
  private Tpch() {}

  static void register(SessionContext ctx) {
    register(ctx::registerTable);
  }

  static void register(SessionState state) {
    register((name, table) -> state.catalog().putTable(new Catalog.TableEntry(name, table, false)));
  }

  static void register(
      java.util.function.BiConsumer<String, dev.quiver.binding.datasource.TableProvider> ctx) {
    ctx.accept(
        "region", new StatsTable(5, "r_regionkey BIGINT", "r_name VARCHAR", "r_comment VARCHAR"));
    ctx.accept(
        "nation",
        new StatsTable(
            25, "n_nationkey BIGINT", "n_name VARCHAR", "n_regionkey BIGINT", "n_comment VARCHAR"));
    ctx.accept(
        "supplier",
        new StatsTable(
            10_000,
            "s_suppkey BIGINT",
            "s_name VARCHAR",
            "s_address VARCHAR",
            "s_nationkey BIGINT",
            "s_phone VARCHAR",
            "s_acctbal DECIMAL(15,2)",
            "s_comment VARCHAR"));
    ctx.accept(
        "customer",
        new StatsTable(
            150_000,
            "c_custkey BIGINT",
            "c_name VARCHAR",
            "c_address VARCHAR",
            "c_nationkey BIGINT",
            "c_phone VARCHAR",
            "c_acctbal DECIMAL(15,2)",
            "c_mktsegment VARCHAR",
            "c_comment VARCHAR"));
    ctx.accept(
        "part",
        new StatsTable(
            200_000,
            "p_partkey BIGINT",
            "p_name VARCHAR",
            "p_mfgr VARCHAR",
            "p_brand VARCHAR",
            "p_type VARCHAR",
            "p_size INT",
            "p_container VARCHAR",
            "p_retailprice DECIMAL(15,2)",
            "p_comment VARCHAR"));
    ctx.accept(
        "partsupp",
        new StatsTable(
            800_000,
            "ps_partkey BIGINT",
            "ps_suppkey BIGINT",
            "ps_availqty INT",
            "ps_supplycost DECIMAL(15,2)",
            "ps_comment VARCHAR"));
    ctx.accept(
        "orders",
        new StatsTable(
            1_500_000,
            "o_orderkey BIGINT",
            "o_custkey BIGINT",
            "o_orderstatus VARCHAR",
            "o_totalprice DECIMAL(15,2)",
            "o_orderdate DATE",
            "o_orderpriority VARCHAR",
            "o_clerk VARCHAR",
            "o_shippriority INT",
            "o_comment VARCHAR"));
    ctx.accept(
        "lineitem",
        new StatsTable(
            6_000_000,
            "l_orderkey BIGINT",
            "l_partkey BIGINT",
            "l_suppkey BIGINT",
            "l_linenumber INT",
            "l_quantity DECIMAL(15,2)",
            "l_extendedprice DECIMAL(15,2)",
            "l_discount DECIMAL(15,2)",
            "l_tax DECIMAL(15,2)",
            "l_returnflag VARCHAR",
            "l_linestatus VARCHAR",
            "l_shipdate DATE",
            "l_commitdate DATE",
            "l_receiptdate DATE",
            "l_shipinstruct VARCHAR",
            "l_shipmode VARCHAR",
            "l_comment VARCHAR"));
  }

  static final String Q1 =
      """
      select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty,
        sum(l_extendedprice) as sum_base_price,
        sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
        sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
        avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc,
        count(*) as count_order
      from lineitem
      where l_shipdate <= date '1998-12-01' - interval '90' day (3)
      group by l_returnflag, l_linestatus
      order by l_returnflag, l_linestatus
      """;

  static final String Q2 =
      """
      select s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
      from part, supplier, partsupp, nation, region
      where p_partkey = ps_partkey and s_suppkey = ps_suppkey and p_size = 15
        and p_type like '%BRASS' and s_nationkey = n_nationkey and n_regionkey = r_regionkey
        and r_name = 'EUROPE'
        and ps_supplycost = (
          select min(ps_supplycost) from partsupp, supplier, nation, region
          where p_partkey = ps_partkey and s_suppkey = ps_suppkey and s_nationkey = n_nationkey
            and n_regionkey = r_regionkey and r_name = 'EUROPE')
      order by s_acctbal desc, n_name, s_name, p_partkey
      limit 100
      """;

  static final String Q5 =
      """
      select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
      from customer, orders, lineitem, supplier, nation, region
      where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey
        and c_nationkey = s_nationkey and s_nationkey = n_nationkey and n_regionkey = r_regionkey
        and r_name = 'ASIA' and o_orderdate >= date '1994-01-01'
        and o_orderdate < date '1994-01-01' + interval '1' year
      group by n_name
      order by revenue desc
      """;

  static final String Q7 =
      """
      select supp_nation, cust_nation, l_year, sum(volume) as revenue
      from (
        select n1.n_name as supp_nation, n2.n_name as cust_nation,
          extract(year from l_shipdate) as l_year, l_extendedprice * (1 - l_discount) as volume
        from supplier, lineitem, orders, customer, nation n1, nation n2
        where s_suppkey = l_suppkey and o_orderkey = l_orderkey and c_custkey = o_custkey
          and s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey
          and ((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY')
            or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE'))
          and l_shipdate between date '1995-01-01' and date '1996-12-31'
      ) as shipping
      group by supp_nation, cust_nation, l_year
      order by supp_nation, cust_nation, l_year
      """;

  static final String Q8 =
"""
select o_year, sum(case when nation = 'BRAZIL' then volume else 0 end) / sum(volume) as mkt_share
from (
  select extract(year from o_orderdate) as o_year,
    l_extendedprice * (1 - l_discount) as volume, n2.n_name as nation
  from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
  where p_partkey = l_partkey and s_suppkey = l_suppkey and l_orderkey = o_orderkey
    and o_custkey = c_custkey and c_nationkey = n1.n_nationkey
    and n1.n_regionkey = r_regionkey and r_name = 'AMERICA'
    and s_nationkey = n2.n_nationkey
    and o_orderdate between date '1995-01-01' and date '1996-12-31'
    and p_type = 'ECONOMY ANODIZED STEEL'
) as all_nations
group by o_year
order by o_year
""";

  static final String Q9 =
      """
      select nation, o_year, sum(amount) as sum_profit
      from (
        select n_name as nation, extract(year from o_orderdate) as o_year,
          l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
        from part, supplier, lineitem, partsupp, orders, nation
        where s_suppkey = l_suppkey and ps_suppkey = l_suppkey and ps_partkey = l_partkey
          and p_partkey = l_partkey and o_orderkey = l_orderkey and s_nationkey = n_nationkey
          and p_name like '%green%'
      ) as profit
      group by nation, o_year
      order by nation, o_year desc
      """;
}
