package dev.quiver.examples.app;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Module;
import dev.quiver.decorators.BindingModule;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.DistributedModule;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.client.ClusterConfig;

/**
 * Runs {@link RevenueReport} with the module chosen on the command line; the report's code is the
 * same in all three cases.
 *
 * <pre>
 * java -cp examples/target/quiver.jar dev.quiver.examples.app.GuiceApp DATA_DIR
 * java -cp examples/target/quiver.jar dev.quiver.examples.app.GuiceApp DATA_DIR --embedded 2
 * java -cp examples/target/quiver.jar dev.quiver.examples.app.GuiceApp DATA_DIR --scheduler localhost:50050
 * </pre>
 */
public final class GuiceApp {
  private GuiceApp() {}

  /** Chooses the module: the plain binding, an embedded cluster, or a running cluster. */
  public static Module module(String[] args) {
    if (args.length >= 3 && args[1].equals("--embedded")) {
      return new EmbeddedClusterModule(Integer.parseInt(args[2]));
    }
    if (args.length >= 3 && args[1].equals("--scheduler")) {
      return new DistributedModule(ClusterConfig.remote(args[2]));
    }
    return new BindingModule();
  }

  /** Entry point: {@code DATA_DIR [--embedded N | --scheduler HOST:PORT]}. */
  public static void main(String[] args) {
    if (args.length < 1) {
      System.err.println("usage: GuiceApp DATA_DIR [--embedded N | --scheduler HOST:PORT]");
      System.exit(2);
    }
    Injector injector = Guice.createInjector(module(args));
    RevenueReport report = injector.getInstance(RevenueReport.class);
    try {
      report.registerTpch(args[0]);
      System.out.println("line items: " + report.countLineitems());
      report.revenueByNation(1995).show(5);
    } finally {
      if (injector.getExistingBinding(com.google.inject.Key.get(ClusterLifecycle.class)) != null) {
        injector.getInstance(ClusterLifecycle.class).close();
      }
    }
  }
}
