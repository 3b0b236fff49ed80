package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.StatementTooLargeException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.flightsql.FlightSqlServer;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.client.ClientCookieMiddleware;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * What a Flight SQL server answers to oversized and malformed input: SQL text past {@code
 * quiver.sql.max_statement_bytes} is refused before parsing with RESOURCE_EXHAUSTED (a 100 MB text
 * once ran the server out of heap in the parser), which a client's SET cannot raise; 10 MB of
 * random bytes to any Flight method is INVALID_ARGUMENT naming the method, never UNKNOWN; and the
 * server answers right afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FlightSqlLimitsTest {
  private static final String SETTING = "quiver.sql.max_statement_bytes";
  private static final String FLIGHT = "arrow.flight.protocol.FlightService/";

  private final BufferAllocator allocator = new RootAllocator();
  private SessionContext catalog;
  private FlightSqlServer server;
  private FlightClient flight;
  private FlightSqlClient sql;

  @BeforeAll
  void start() {
    catalog = new SessionContext(new SessionConfig().set(SETTING, "1MB"));
    catalog.sql("CREATE TABLE t (x INT)").rows();
    catalog.sql("INSERT INTO t VALUES (1), (2), (3)").rows();
    server = FlightSqlServer.start(catalog, FlightSqlServer.Options.loopback(0), "test");
    flight =
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
            .intercept(new ClientCookieMiddleware.Factory())
            .build();
    sql = new FlightSqlClient(flight);
  }

  @AfterAll
  void stop() throws Exception {
    if (sql != null) {
      sql.close();
    }
    if (server != null) {
      server.close();
    }
    if (catalog != null) {
      catalog.close();
    }
    allocator.close();
  }

  /** A query whose text is {@code bytes} long (a comment pads it). */
  private static String queryOf(int bytes) {
    String q = "SELECT count(*) FROM t -- ";
    return q + "x".repeat(bytes - q.length());
  }

  private long count(String query) throws Exception {
    FlightInfo info = sql.execute(query);
    try (FlightStream s = sql.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(s.next()).isTrue();
      return ((Number) s.getRoot().getVector(0).getObject(0)).longValue();
    }
  }

  @Test
  void statementsPastTheServersLimitAreResourceExhausted() throws Exception {
    assertThat(count(queryOf(1 << 19))).isEqualTo(3);
    for (String query : List.of(queryOf((1 << 20) + 1), queryOf(8 << 20))) {
      Throwable e = catchThrowable(() -> sql.execute(query));
      assertThat(e).isInstanceOf(FlightRuntimeException.class);
      CallStatus status = ((FlightRuntimeException) e).status();
      assertThat(status.code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
      assertThat(status.description()).contains("Statement too large").contains(SETTING);
      Throwable prepared = catchThrowable(() -> sql.prepare(query));
      assertThat(((FlightRuntimeException) prepared).status().code())
          .isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
    }
    // A client's SET raises its session's value, not the server's bound.
    sql.executeUpdate("SET " + SETTING + " = '1GB'");
    Throwable e = catchThrowable(() -> sql.execute(queryOf(2 << 20)));
    assertThat(((FlightRuntimeException) e).status().code())
        .isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
    assertThat(count("SELECT count(*) FROM t")).isEqualTo(3);
  }

  /** The library checks its session's value before parsing, and its owner may raise it. */
  @Test
  void theLibraryChecksItsSessionsValue() {
    try (SessionContext ctx = new SessionContext(new SessionConfig().set(SETTING, "64KB"))) {
      String query = "SELECT 1 AS x -- " + "y".repeat(70_000);
      assertThatThrownBy(() -> ctx.sql(query))
          .isInstanceOf(StatementTooLargeException.class)
          .hasMessageContaining(SETTING)
          .hasMessageContaining("65536 bytes");
      // Multi-byte text counts in UTF-8 bytes: 30,000 three-byte characters are 90,000 bytes.
      assertThatThrownBy(() -> ctx.sql("SELECT 1 AS x -- " + "\u20ac".repeat(30_000)))
          .isInstanceOf(StatementTooLargeException.class);
      ctx.sql("SET " + SETTING + " = '1MB'").rows();
      assertThat(ctx.sql(query).rows()).hasSize(1);
    }
  }

  @Test
  void tenMegabytesOfRandomBytesToAnyFlightMethodIsInvalidArgument() throws Exception {
    byte[] garbage = new byte[10 << 20];
    new Random(39).nextBytes(garbage);
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.port())
            .usePlaintext()
            .maxInboundMessageSize(1 << 20)
            .build();
    try {
      for (String method :
          List.of(
              "GetFlightInfo", "GetSchema", "DoAction", "DoGet", "ListFlights", "ListActions")) {
        boolean streaming = !method.startsWith("Get");
        Throwable e =
            catchThrowable(() -> RawGrpc.call(channel, FLIGHT + method, streaming, garbage));
        assertThat(e).as(method).isInstanceOf(StatusRuntimeException.class);
        Status status = ((StatusRuntimeException) e).getStatus();
        assertThat(status.getCode())
            .as(method + ": " + status)
            .isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(status.getDescription())
            .as(method)
            .contains(FLIGHT + method)
            .contains("is not a valid")
            .doesNotContain("\tat ");
      }
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    // A well-formed descriptor whose command is random bytes is no Flight SQL command.
    byte[] command = new byte[1 << 20];
    new Random(40).nextBytes(command);
    Throwable e = catchThrowable(() -> flight.getInfo(FlightDescriptor.command(command)));
    assertThat(e).isInstanceOf(FlightRuntimeException.class);
    assertThat(((FlightRuntimeException) e).status().code())
        .isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
    assertThat(count("SELECT count(*) FROM t")).isEqualTo(3);
  }
}
