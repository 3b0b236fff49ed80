package dev.quiver.examples.tpch;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.UnknownCatalogException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The TPC-H tables as Apache Iceberg tables of an attached catalog, in namespace {@code
 * tpch_sf<sf>}: lineitem partitioned by {@code month(l_shipdate)}, orders by {@code
 * month(o_orderdate)}, the others unpartitioned. They are written by Quiver's own {@code CREATE
 * TABLE ... AS SELECT} from the generated Parquet files, so the generator stays the one of {@link
 * TpchData}; each table is one commit, so a table that exists is complete.
 */
public final class TpchIceberg {
  /** The partition transforms of the partitioned tables; the others have none. */
  public static final Map<String, String> PARTITIONED_BY =
      Map.of("lineitem", "month(l_shipdate)", "orders", "month(o_orderdate)");

  /**
   * The rows of a partitioned table are written ordered by month (as Spark's default write
   * distribution clusters them by partition), so each month becomes one file (or two at a write
   * buffer's end) rather than one file per month per write buffer; within a month by key, as the
   * generator wrote them, which keeps aggregations and joins on the order key clustered.
   */
  private static final Map<String, String> ORDER_BY =
      Map.of(
          "lineitem", "date_trunc('month', l_shipdate), l_orderkey, l_linenumber",
          "orders", "date_trunc('month', o_orderdate), o_orderkey");

  /** The warehouse folder's name inside the Parquet data folder, when no catalog is given. */
  static final String WAREHOUSE_FOLDER = "iceberg";

  private TpchIceberg() {}

  /**
   * The namespace of scale factor {@code scaleFactor}'s tables: {@code tpch_sf0_1}, {@code
   * tpch_sf1}.
   */
  public static String namespace(double scaleFactor) {
    return "tpch_sf" + TpchData.formatScale(scaleFactor).replace('.', '_');
  }

  /**
   * The default warehouse folder for the Parquet data folder {@code data}: {@code data/iceberg}.
   */
  public static Path defaultWarehouse(Path data) {
    return data.resolve(WAREHOUSE_FOLDER);
  }

  /** Where a warehouse folder keeps table {@code table} of {@code namespace}. */
  public static Path tableLocation(Path warehouse, String namespace, String table) {
    return warehouse.resolve(namespace).resolve(table);
  }

  /**
   * Creates in catalog {@code catalog} of {@code ctx} the tables that namespace {@code namespace}
   * lacks, each from its Parquet folder under {@code data}; returns the tables created.
   */
  public static List<String> load(
      SessionContext ctx, String catalog, String namespace, Path data, PrintWriter out) {
    TableCatalog c = attached(ctx, catalog);
    List<String> missing =
        TpchData.TABLES.stream().filter(t -> c.table(namespace, t) == null).toList();
    for (String table : missing) {
      out.printf("loading %s.%s.%s ...%n", catalog, namespace, table);
      out.flush();
      long start = System.nanoTime();
      ctx.sql(createTableSql(catalog, namespace, table, TpchData.tableDirectory(data, table)))
          .collect()
          .forEach(org.apache.arrow.vector.VectorSchemaRoot::close);
      out.printf("loaded in %.1f s%n", (System.nanoTime() - start) / 1e9);
      out.flush();
    }
    return missing;
  }

  /** The CREATE TABLE ... AS SELECT that writes {@code table} from its Parquet folder. */
  static String createTableSql(String catalog, String namespace, String table, Path parquet) {
    String partitioned = PARTITIONED_BY.get(table);
    String order = ORDER_BY.get(table);
    return "CREATE TABLE "
        + catalog
        + "."
        + namespace
        + "."
        + table
        + (partitioned == null ? "" : " PARTITIONED BY (" + partitioned + ")")
        + " AS SELECT * FROM read_parquet('"
        + parquet.toAbsolutePath().toString().replace("'", "''")
        + "')"
        + (order == null ? "" : " ORDER BY " + order);
  }

  /**
   * Registers the eight tables of {@code namespace} in catalog {@code catalog} under their plain
   * names (as the queries name them), each at its current snapshot.
   */
  public static void register(SessionContext ctx, String catalog, String namespace) {
    TableCatalog c = attached(ctx, catalog);
    for (String table : TpchData.TABLES) {
      TableProvider provider = c.table(namespace, table);
      if (provider == null) {
        throw new IllegalStateException(
            "Catalog "
                + catalog
                + " has no table "
                + namespace
                + "."
                + table
                + "; load the TPC-H tables first");
      }
      ctx.registerTable(table, provider);
    }
  }

  private static TableCatalog attached(SessionContext ctx, String catalog) {
    TableCatalog c = ctx.catalog(catalog);
    if (c == null) {
      throw new UnknownCatalogException(catalog, ctx.catalogNames());
    }
    return c;
  }
}
