package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.InternalException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.flightsql.FlightSqlServer;
import dev.quiver.tests.udf.BrokenCheck;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.client.ClientCookieMiddleware;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An extension's bug ({@link BrokenCheck}, whose internal check fails with an AssertionError) never
 * reaches a user as a bare class name: one process, over Flight SQL and on the embedded cluster
 * (where the executor's task fails) it is an {@link InternalException} naming the query or task,
 * the exception and where it was thrown.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InternalErrorsTest {
  private static final String QUERY =
      "SELECT broken_check(x) AS y FROM (SELECT CAST(x AS BIGINT) AS x FROM t) s";

  private static void createTable(SessionContext ctx) {
    ctx.sql("CREATE TABLE t AS SELECT * FROM (VALUES (1), (2), (3)) v(x)").rows();
    ctx.registerUdf(new BrokenCheck());
  }

  private static void assertNamed(String message, String what) {
    assertThat(message)
        .contains("Internal error in " + what)
        .contains("AssertionError: broken_check's invariant failed at BrokenCheck.invoke")
        .contains("this is a bug in Quiver")
        .doesNotContain("java.lang.");
  }

  @Test
  void oneProcess() {
    try (SessionContext ctx = new SessionContext()) {
      createTable(ctx);
      Throwable e = catchThrowable(() -> ctx.sql(QUERY).rows());
      assertThat(e).isInstanceOf(InternalException.class);
      String id = ((InternalException) e).queryId();
      assertNamed(e.getMessage(), "query " + id);
      assertThat(ctx.sql("SELECT count(*) AS n FROM t").rows()).hasSize(1);
    }
  }

  @Test
  void overFlightSql() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        SessionContext catalog = new SessionContext()) {
      createTable(catalog);
      try (FlightSqlServer server =
              FlightSqlServer.start(catalog, FlightSqlServer.Options.loopback(0), "test");
          FlightClient flight =
              FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
                  .intercept(new ClientCookieMiddleware.Factory())
                  .build()) {
        FlightSqlClient sql = new FlightSqlClient(flight);
        Throwable e =
            catchThrowable(
                () -> {
                  FlightInfo info = sql.execute(QUERY);
                  try (FlightStream s = sql.getStream(info.getEndpoints().get(0).getTicket())) {
                    while (s.next()) {
                      // drains the stream, where the failure arrives
                    }
                  }
                });
        assertThat(e).isInstanceOf(FlightRuntimeException.class);
        CallStatus status = ((FlightRuntimeException) e).status();
        assertThat(status.code()).isEqualTo(FlightStatusCode.INTERNAL);
        assertNamed(status.description(), "query ");
      }
    }
  }

  @Test
  void onTheEmbeddedCluster() {
    Injector injector = Guice.createInjector(new EmbeddedClusterModule(2, new SessionConfig()));
    try (ClusterLifecycle lifecycle = injector.getInstance(ClusterLifecycle.class)) {
      lifecycle.start();
      SessionContext ctx = injector.getInstance(SessionContext.class);
      createTable(ctx);
      Throwable e = catchThrowable(() -> ctx.sql(QUERY).rows());
      assertThat(e).isInstanceOf(InternalException.class);
      assertNamed(e.getMessage(), "task job-");
      assertThat(((InternalException) e).queryId()).startsWith("job-");
    }
  }
}
