package dev.quiver.tests.apps;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.distributed.EmbeddedClusterModule;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * An application as a team writes it with the plain binding, switched to an embedded cluster by its
 * Guice module only: it closes its session and returns from main, never touching {@code
 * ClusterLifecycle}. Run as a child process by {@code EmbeddedClusterExitTest}.
 */
public final class EmbeddedClusterApp {
  private EmbeddedClusterApp() {}

  /** Args: the lineitem folder. */
  public static void main(String[] args) {
    Injector injector = Guice.createInjector(new EmbeddedClusterModule(2));
    try (SessionContext ctx = injector.getInstance(SessionContext.class)) {
      ctx.registerParquet("lineitem", args[0]);
      ctx.sql("SELECT l_returnflag, count(*) AS n FROM lineitem GROUP BY l_returnflag").show();
      System.out.println(
          ctx.sql("SELECT count(*) FROM lineitem").explain().isEmpty() ? "" : "explained");
      ctx.sql("SELECT * FROM lineitem LIMIT 5").collect().forEach(VectorSchemaRoot::close);
      System.out.println("rows " + ctx.sql("SELECT * FROM lineitem").count());
    }
    System.out.println("main returned");
  }
}
