package dev.quiver.examples.app;

import dev.quiver.binding.SessionContext;
import dev.quiver.distributed.DistributedExtension;
import dev.quiver.distributed.client.ClusterConfig;

/**
 * The same report without Guice: a plain {@link SessionContext} given the distributed engine with
 * {@code withExtensions}.
 *
 * <pre>
 * java -cp examples/target/quiver.jar dev.quiver.examples.app.ExtensionApp DATA_DIR localhost:50050
 * </pre>
 */
public final class ExtensionApp {
  private ExtensionApp() {}

  /** Entry point: {@code DATA_DIR HOST:PORT}. */
  public static void main(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: ExtensionApp DATA_DIR SCHEDULER_HOST:PORT");
      System.exit(2);
    }
    try (DistributedExtension cluster =
            DistributedExtension.connect(ClusterConfig.remote(args[1]));
        SessionContext ctx = new SessionContext().withExtensions(cluster)) {
      RevenueReport report = new RevenueReport(ctx);
      report.registerTpch(args[0]);
      System.out.println("line items: " + report.countLineitems());
      report.revenueByNation(1995).show(5);
    }
  }
}
