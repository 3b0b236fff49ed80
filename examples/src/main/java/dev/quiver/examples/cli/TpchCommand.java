package dev.quiver.examples.cli;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.decorators.DistributedDataFrame;
import dev.quiver.examples.cluster.ClusterTarget;
import dev.quiver.examples.engine.Engine;
import dev.quiver.examples.engine.QuiverEngine;
import dev.quiver.examples.tpch.TpchQuery;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code quiver tpch}: generates TPC-H data if needed and runs the 22 queries (on Quiver by
 * default).
 */
@Command(
    name = "tpch",
    mixinStandardHelpOptions = true,
    description = "Runs the 22 TPC-H queries on Quiver, generating the data first if needed.")
public final class TpchCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(
      names = "--sf",
      defaultValue = "0.1",
      description = "Scale factor (default: ${DEFAULT-VALUE}).")
  private double scaleFactor;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Data folder (default: ./data/tpch-sf<sf>).")
  private Path data;

  @Mixin private SettingOptions settings;

  @Option(
      names = "--queries",
      split = ",",
      paramLabel = "N",
      description = "Query numbers to run, e.g. 1,3,5 (default: all 22).")
  private List<Integer> queries;

  @Mixin private ClusterOptions cluster;

  @Mixin private CatalogOptions catalogs;

  @Option(
      names = "--table-format",
      defaultValue = "parquet",
      paramLabel = "FORMAT",
      description =
          "parquet: the generated Parquet folders; iceberg: Iceberg tables in namespace"
              + " tpch_sf<sf> of the first --catalog, else of the warehouse folder <data>/iceberg,"
              + " written from the Parquet files when missing (lineitem and orders partitioned by"
              + " month) (default: ${DEFAULT-VALUE}).")
  private TpchSetup.TableFormat tableFormat;

  @Option(
      names = "--show-results",
      paramLabel = "ROWS",
      defaultValue = "0",
      description = "Print up to ROWS rows of each query's result (default: none).")
  private int showRows;

  @Option(
      names = "--show-stages",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description = "On a cluster, print each query's stages with their tasks (default: on).")
  private boolean showStages;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Path dir = TpchSetup.prepareData(scaleFactor, data, out);
    int threads = TpchSetup.threadsOrCores(settings.partitions());
    List<TpchQuery> selected = TpchSetup.selectQueries(queries);
    int failures = 0;
    double totalMs = 0;
    try (ClusterTarget target = cluster.open();
        QuiverEngine engine = openEngine(target, threads, dir, out)) {
      if (target.distributed()) {
        out.printf("running on %s%n", target.describe());
        if (showStages) {
          target.runtime().addJobListener((graph, status) -> out.print(StageReport.format(status)));
        }
      }
      for (TpchQuery q : selected) {
        long start = System.nanoTime();
        try {
          long rows;
          if (target.distributed()) {
            DataFrame df = engine.session().sql(q.sql());
            try (ProgressLine line =
                ProgressLine.start(
                    () -> DistributedDataFrame.progressOf(df),
                    spec.commandLine().getErr(),
                    cluster.progress())) {
              rows =
                  showRows > 0 ? ResultPrinter.print(df, showRows, out) : ResultPrinter.count(df);
            }
          } else if (showRows > 0) {
            rows = ResultPrinter.print(engine.session().sql(q.sql()), showRows, out);
          } else {
            rows = engine.execute(q.sql());
          }
          double ms = (System.nanoTime() - start) / 1e6;
          totalMs += ms;
          out.printf("%s  %8d rows  %10.1f ms%n", q.name(), rows, ms);
        } catch (RuntimeException e) {
          failures++;
          out.printf("%s  failed: %s%n", q.name(), QuiverCli.oneLine(e));
        }
        out.flush();
      }
    }
    out.printf("total %d queries, %d failed, %.1f ms%n", selected.size(), failures, totalMs);
    out.flush();
    return failures == 0 ? 0 : QuiverCli.EXIT_FAILURE;
  }

  private QuiverEngine openEngine(ClusterTarget target, int threads, Path dir, PrintWriter out) {
    QuiverEngine engine =
        target.distributed()
            ? new QuiverEngine(target.newSession(new SessionConfig().withTargetPartitions(threads)))
            : new QuiverEngine(threads);
    return (QuiverEngine)
        Engine.withTables(
            engine,
            e -> {
              SessionContext ctx = engine.session();
              settings.apply(ctx.config());
              catalogs.attach(ctx, spec);
              if (tableFormat == TpchSetup.TableFormat.iceberg) {
                List<String> given = catalogs.names();
                String catalog = given.isEmpty() ? TpchSetup.WAREHOUSE_CATALOG : given.get(0);
                if (given.isEmpty()) {
                  TpchSetup.attachWarehouse(ctx, dir);
                }
                TpchSetup.loadIceberg(ctx, catalog, scaleFactor, dir, out);
              } else {
                TpchSetup.registerTables(e, dir);
              }
            });
  }
}
