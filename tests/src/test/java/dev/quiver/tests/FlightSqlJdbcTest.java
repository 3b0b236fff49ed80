package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.SchedulerClient;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.RegisterRequest;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.security.GrpcSecurity;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.wire.WireProtocol;
import dev.quiver.examples.tpch.TpchData;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.client.ClientCookieMiddleware;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlNullOrdering;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedCaseSensitivity;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver serve --embedded 2 --token-file F} through the real Arrow Flight SQL JDBC driver:
 * types, metadata as DBeaver reads it, prepared statements with parameters, DDL/DML/SET and
 * per-client sessions over shared tables, 16 concurrent clients, cancellation freeing the
 * executors, and a wrong token. Rows are checked against DuckDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FlightSqlJdbcTest {
  private static final String TOKEN = "s3cr3t-token-for-tests";
  private static final String CLUSTER_TOKEN = "embedded-cluster-credential-for-tests";

  @TempDir Path tmp;
  private Path data;
  private ServeProcess server;
  private RowEngine duckdb;
  private IcebergModel lakeTimes;

  /**
   * {@code lakeDir} is a parameter, not the {@code tmp} field: JUnit fills instance
   * {@code @TempDir} fields before each test, after {@code @BeforeAll} has run; a
   * {@code @BeforeAll} parameter lives as long as the class's tests, as the served catalog must.
   */
  @BeforeAll
  void start(@TempDir Path lakeDir) throws Exception {
    data = TpchFixture.data(CorpusTestBase.SCALE);
    // A warehouse folder of Iceberg tables, attached by the command line as catalog "lake".
    Path warehouse = lakeDir.resolve("warehouse");
    lakeTimes = IcebergTables.times(warehouse.resolve("db/times").toString());
    Path tokenFile = Files.writeString(Files.createTempFile("quiver-token", ".txt"), TOKEN + "\n");
    tokenFile.toFile().deleteOnExit();
    Path clusterTokenFile =
        Files.writeString(Files.createTempFile("quiver-cluster-token", ".txt"), CLUSTER_TOKEN);
    clusterTokenFile.toFile().deleteOnExit();
    // 64 KiB of input per task, so that even SF 0.01 queries run as multi-task jobs.
    server =
        ServeProcess.start(
            data,
            "--embedded",
            "2",
            "--token-file",
            tokenFile.toString(),
            "--cluster-token-file",
            clusterTokenFile.toString(),
            "--http-port",
            "0",
            "--set",
            "quiver.distributed.bytes_per_task=64KB",
            "--catalog",
            "lake=iceberg:" + warehouse);
    duckdb = Differential.reference(data);
  }

  @AfterAll
  void stop() {
    if (duckdb != null) {
      duckdb.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("token", TOKEN);
    return DriverManager.getConnection(server.jdbcUrl(), p);
  }

  private static QueryResult query(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return JdbcRows.read(rs);
    }
  }

  private void checkAgainstDuckDb(Connection c, String sql) throws SQLException {
    QueryResult expected = duckdb.query(sql);
    Differential.check(sql, sql, expected, query(c, sql), Differential.sortOf(sql, expected));
  }

  /**
   * Struct, list and map columns (and a TIME column) come through the driver as its Java values (a
   * struct or map as a Map, a list as a java.sql.Array), on the embedded cluster; their parts are
   * checked against DuckDB extracting the same parts from the same files.
   */
  @Test
  void nestedColumnsComeThroughTheDriver() throws Exception {
    Path dir = dev.quiver.binding.datasource.NestedParquetTest.write(tmp);
    List<String> want =
        dev.quiver.binding.datasource.SameRows.duckdb(
            "n",
            "SELECT * FROM read_parquet('" + dir + "/*.parquet')",
            "SELECT id, s.a, s.b, s.c.d, s.c.e[1], len(l), l[1], l[3], m['k'], len(ls),"
                + " ls[1].x, ls[1].y FROM n ORDER BY id LIMIT 60");
    List<String> got = new ArrayList<>();
    try (Connection c = connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id, s, l, m, ls, t FROM read_parquet('"
                    + dir
                    + "') ORDER BY id LIMIT 60")) {
      ResultSetMetaData md = rs.getMetaData();
      assertThat(md.getColumnType(2)).isEqualTo(Types.JAVA_OBJECT);
      assertThat(md.getColumnType(3)).isEqualTo(Types.ARRAY);
      assertThat(md.getColumnType(4)).isEqualTo(Types.JAVA_OBJECT);
      assertThat(md.getColumnType(5)).isEqualTo(Types.ARRAY);
      assertThat(md.getColumnType(6)).isEqualTo(Types.TIME);
      while (rs.next()) {
        java.util.Map<?, ?> struct = (java.util.Map<?, ?>) rs.getObject(2);
        java.util.Map<?, ?> inner = struct == null ? null : (java.util.Map<?, ?>) struct.get("c");
        Object[] list = elements(rs.getArray(3));
        java.util.Map<?, ?> map = (java.util.Map<?, ?>) rs.getObject(4);
        Object[] structs = elements(rs.getArray(5));
        java.util.Map<?, ?> first = structs == null ? null : (java.util.Map<?, ?>) structs[0];
        Object[] e = inner == null ? null : ((List<?>) inner.get("e")).toArray();
        List<Object> row =
            Arrays.asList(
                rs.getLong(1),
                struct == null ? null : struct.get("a"),
                struct == null ? null : struct.get("b"),
                inner == null ? null : inner.get("d"),
                e == null ? null : e[0],
                list == null ? null : list.length,
                list == null || list.length < 1 ? null : list[0],
                list == null || list.length < 3 ? null : list[2],
                map == null ? null : valueOf(map, "k"),
                structs == null ? null : structs.length,
                first == null ? null : first.get("x"),
                first == null ? null : first.get("y"));
        StringBuilder b = new StringBuilder();
        for (Object o : row) {
          b.append(b.length() > 0 ? "|" : "")
              .append(dev.quiver.binding.datasource.SameRows.normalize(o));
        }
        got.add(b.toString());
      }
    }
    assertThat(got).hasSize(60).containsExactlyElementsOf(want);
  }

  /** The value of key {@code key} of a map as the driver gives it (keys may be Arrow Text). */
  private static Object valueOf(java.util.Map<?, ?> map, String key) {
    for (java.util.Map.Entry<?, ?> e : map.entrySet()) {
      if (String.valueOf(e.getKey()).equals(key)) {
        return e.getValue();
      }
    }
    return null;
  }

  private static Object[] elements(java.sql.Array array) throws SQLException {
    return array == null ? null : (Object[]) array.getArray();
  }

  @Test
  void wrongOrMissingTokenIsUnauthenticated() {
    Properties wrong = new Properties();
    wrong.setProperty("token", "not-the-token");
    assertThatThrownBy(() -> DriverManager.getConnection(server.jdbcUrl(), wrong).close())
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(causes(e)).containsIgnoringCase("unauthenticated"))
        .satisfies(e -> assertThat(causes(e)).doesNotContain(TOKEN).doesNotContain("\tat "))
        // What a JDBC user sets, not the cluster's flags.
        .satisfies(e -> assertThat(causes(e)).contains("token=").doesNotContain("cluster-token"));
    assertThatThrownBy(
            () -> {
              try (Connection c = DriverManager.getConnection(server.jdbcUrl(), new Properties())) {
                query(c, "SELECT 1");
              }
            })
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(causes(e)).containsIgnoringCase("unauthenticated"));
  }

  /**
   * Every port of the embedded cluster authenticates as the standalone jars do: its scheduler
   * refuses Register and Heartbeat without a token (a fake executor once joined and would have
   * received tasks) and with the clients' token, and its HTTP port (metrics, jobs API) wants the
   * cluster's credential.
   */
  @Test
  void theEmbeddedClustersPortsNeedTheClusterCredential() throws Exception {
    String target = server.scheduler();
    assertThat(target).as("serve prints its embedded scheduler").isNotNull();
    RegisterRequest register =
        RegisterRequest.newBuilder()
            .setProtocolVersion(WireProtocol.VERSION)
            .setExecutor(
                ExecutorInfo.newBuilder()
                    .setExecutorId("impostor")
                    .setHost("127.0.0.1")
                    .setFlightPort(9)
                    .setCores(64))
            .build();
    HeartbeatRequest heartbeat = HeartbeatRequest.newBuilder().setExecutorId("impostor").build();
    for (SecurityConfig caller :
        List.of(SecurityConfig.none(), SecurityConfig.none().withToken(TOKEN))) {
      Status.Code expected =
          caller.hasToken() ? Status.Code.PERMISSION_DENIED : Status.Code.UNAUTHENTICATED;
      ManagedChannel channel =
          GrpcSecurity.channelBuilder(
                  target.substring(0, target.lastIndexOf(':')),
                  Integer.parseInt(target.substring(target.lastIndexOf(':') + 1)),
                  caller)
              .build();
      try {
        SchedulerGrpc.SchedulerBlockingStub stub =
            SchedulerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        for (Runnable call :
            List.<Runnable>of(() -> stub.register(register), () -> stub.heartbeat(heartbeat))) {
          Throwable e = catchThrowable(call::run);
          assertThat(e).as(caller.toString()).isInstanceOf(StatusRuntimeException.class);
          assertThat(((StatusRuntimeException) e).getStatus().getCode())
              .as(caller.toString())
              .isEqualTo(expected);
        }
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
    try (SchedulerClient scheduler = new SchedulerClient(operator())) {
      assertThat(scheduler.executorsIncludingLost())
          .extracting(e -> e.getInfo().getExecutorId())
          .doesNotContain("impostor")
          .hasSize(2);
    }
    String metrics = "http://127.0.0.1:" + server.httpPort() + "/metrics";
    assertThat(httpGet(metrics, null).statusCode()).isEqualTo(401);
    assertThat(httpGet(metrics, TOKEN).statusCode()).isEqualTo(401);
    HttpResponse<String> ok = httpGet(metrics, CLUSTER_TOKEN);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).doesNotContain(TOKEN).doesNotContain(CLUSTER_TOKEN);
  }

  /** The embedded cluster's operator: the clients' token and the cluster credential. */
  private ClusterConfig operator() {
    return ClusterConfig.remote(server.scheduler())
        .withSecurity(SecurityConfig.none().withToken(TOKEN).withClusterToken(CLUSTER_TOKEN));
  }

  private static HttpResponse<String> httpGet(String url, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String causes(Throwable e) {
    StringBuilder s = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      s.append(t.getMessage()).append('\n');
    }
    return s.toString();
  }

  @Test
  void everyTypeRoundTrips() throws Exception {
    String[] statements = {
      "CREATE TABLE types_rt (i INTEGER, b BIGINT, d DECIMAL(12, 3), f DOUBLE, s VARCHAR, dt DATE,"
          + " ts TIMESTAMP, flag BOOLEAN)",
      "INSERT INTO types_rt VALUES (1, 9000000000, 12345.678, 2.5, 'héllo wörld ✓ 日本',"
          + " DATE '2024-02-29', TIMESTAMP '2024-02-29 12:34:56.789', TRUE)",
      "INSERT INTO types_rt VALUES (2, -1, -0.001, -1.0E10, '', DATE '1970-01-01',"
          + " TIMESTAMP '1969-12-31 23:59:59', FALSE)",
      "INSERT INTO types_rt VALUES (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
    };
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      assertThat(s.executeUpdate(statements[0])).isEqualTo(0);
      for (int i = 1; i < statements.length; i++) {
        assertThat(s.executeUpdate(statements[i])).isEqualTo(1);
      }
      String select = "SELECT * FROM types_rt ORDER BY i";
      QueryResult actual = query(c, select);
      try (DuckDbRows reference = new DuckDbRows(data, 1)) {
        for (String st : statements) {
          reference.execute(st);
        }
        QueryResult expected = reference.query(select);
        Differential.check(
            "types", select, expected, actual, Differential.sortOf(select, expected));
      }
      try (ResultSet rs = s.executeQuery(select)) {
        ResultSetMetaData md = rs.getMetaData();
        assertThat(md.getColumnType(3)).isEqualTo(Types.DECIMAL);
        assertThat(md.getScale(3)).isEqualTo(3);
        assertThat(md.getColumnType(6)).isEqualTo(Types.DATE);
        assertThat(md.getColumnType(7)).isEqualTo(Types.TIMESTAMP);
        assertThat(rs.next()).isTrue();
        assertThat(rs.getBigDecimal(3)).isEqualByComparingTo("12345.678");
        assertThat(rs.getString(5)).isEqualTo("héllo wörld ✓ 日本");
        assertThat(rs.getObject(6, LocalDate.class)).isEqualTo(LocalDate.of(2024, 2, 29));
        assertThat(rs.getTimestamp(7).toLocalDateTime())
            .isEqualTo(LocalDateTime.of(2024, 2, 29, 12, 34, 56, 789_000_000));
      }
    }
  }

  @Test
  void metadataAsDBeaverReadsIt() throws Exception {
    try (Connection c = connect()) {
      DatabaseMetaData md = c.getMetaData();
      assertThat(md.getDatabaseProductName()).isEqualTo("Quiver");
      assertThat(md.getDatabaseProductVersion()).isNotBlank();
      assertThat(md.getIdentifierQuoteString()).isEqualTo("\"");
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = md.getTables(null, null, "%", null)) {
        while (rs.next()) {
          tables.add(rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
        }
      }
      assertThat(tables).contains("lineitem:TABLE", "nation:TABLE");
      try (ResultSet rs = md.getTables(null, null, "line%", new String[] {"TABLE"})) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("TABLE_NAME")).isEqualTo("lineitem");
        assertThat(rs.next()).isFalse();
      }
      List<String> columns = new ArrayList<>();
      try (ResultSet rs = md.getColumns(null, null, "lineitem", "%")) {
        while (rs.next()) {
          columns.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("DATA_TYPE"));
        }
      }
      assertThat(columns)
          .hasSize(16)
          .contains(
              "l_orderkey:" + Types.BIGINT,
              "l_quantity:" + Types.DECIMAL,
              "l_shipdate:" + Types.DATE,
              "l_comment:" + Types.VARCHAR);
      // The 18.3 driver answers getTypeInfo itself (empty, without asking the server); the
      // server's GetXdbcTypeInfo is checked below with a Flight SQL client.
      try (ResultSet rs = md.getTypeInfo()) {
        rs.next();
      }
      try (ResultSet rs = md.getTableTypes()) {
        List<String> kinds = new ArrayList<>();
        while (rs.next()) {
          kinds.add(rs.getString(1));
        }
        assertThat(kinds).containsExactly("TABLE", "VIEW");
      }
      try (ResultSet rs = md.getPrimaryKeys(null, null, "lineitem")) {
        assertThat(rs.next()).isFalse();
      }
      try (ResultSet rs = md.getImportedKeys(null, null, "lineitem")) {
        assertThat(rs.next()).isFalse();
      }
      try (ResultSet rs = md.getExportedKeys(null, null, "lineitem")) {
        assertThat(rs.next()).isFalse();
      }
      try (ResultSet rs = md.getCatalogs()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("TABLE_CAT")).isEqualTo("lake");
        assertThat(rs.next()).isFalse();
      }
    }
  }

  /**
   * GetSqlInfo answers every SqlInfo the Flight SQL specification defines (a missing one is a
   * NullPointerException in the 18.3 driver: SQLLine printed UndeclaredThrowableException on every
   * connect), and what it claims Quiver does, Quiver does, as DuckDB does.
   */
  @Test
  void sqlInfoAnswersEveryInfoTheSpecDefinesAndTellsTheTruth() throws Exception {
    Map<Integer, Object> infos = sqlInfo();
    List<String> missing = new ArrayList<>();
    for (SqlInfo info : SqlInfo.values()) {
      if (info != SqlInfo.UNRECOGNIZED && !infos.containsKey(info.getNumber())) {
        missing.add(info.name());
      }
    }
    assertThat(missing).isEmpty();
    assertThat(number(infos, SqlInfo.SQL_DEFAULT_TRANSACTION_ISOLATION)).isZero();
    assertThat(number(infos, SqlInfo.SQL_NULL_ORDERING))
        .isEqualTo(SqlNullOrdering.SQL_NULLS_SORTED_AT_END_VALUE);
    assertThat(number(infos, SqlInfo.SQL_IDENTIFIER_CASE))
        .isEqualTo(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_LOWERCASE_VALUE);
    assertThat(number(infos, SqlInfo.SQL_QUOTED_IDENTIFIER_CASE))
        .isEqualTo(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE_VALUE);
    try (Connection c = connect()) {
      // Nulls sort at the end in both directions, as in DuckDB.
      checkAgainstDuckDb(c, "SELECT x FROM (VALUES (2), (NULL), (1)) t(x) ORDER BY x");
      checkAgainstDuckDb(c, "SELECT x FROM (VALUES (2), (NULL), (1)) t(x) ORDER BY x DESC");
      assertThat(query(c, "SELECT x FROM (VALUES (2), (NULL), (1)) t(x) ORDER BY x DESC").rows())
          .last()
          .satisfies(row -> assertThat(row.get(0)).isNull());
      // Unquoted names are lower-cased; quoted ones match whatever their case.
      assertThat(query(c, "SELECT \"N_NAME\" FROM \"NATION\" WHERE N_NATIONKEY = 0").rows())
          .isEqualTo(query(c, "SELECT n_name FROM nation WHERE n_nationkey = 0").rows());
      try (Statement s = c.createStatement()) {
        s.executeUpdate("CREATE TABLE Mixed_Case_Info (A INTEGER)");
      }
      try (ResultSet rs = c.getMetaData().getTables(null, null, "mixed_case_info", null)) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("TABLE_NAME")).isEqualTo("mixed_case_info");
      }
      try (Statement s = c.createStatement()) {
        s.executeUpdate("DROP TABLE \"MIXED_CASE_INFO\"");
      }
      // Every cast SQL_SUPPORTS_CONVERT lists runs.
      @SuppressWarnings("unchecked")
      Map<Integer, List<Integer>> convert =
          (Map<Integer, List<Integer>>) infos.get(SqlInfo.SQL_SUPPORTS_CONVERT_VALUE);
      List<String> casts = new ArrayList<>();
      convert.forEach((from, tos) -> tos.forEach(to -> casts.add(cast(from, to))));
      assertThat(casts).hasSizeGreaterThan(100);
      assertThat(query(c, "SELECT " + String.join(", ", casts)).rows()).hasSize(1);
    }
  }

  private static int number(Map<Integer, Object> infos, SqlInfo info) {
    return ((Number) infos.get(info.getNumber())).intValue();
  }

  /** Reads GetSqlInfo (all infos) as a Flight SQL client: info number to its Java value. */
  private Map<Integer, Object> sqlInfo() throws Exception {
    CredentialCallOption auth = new CredentialCallOption(new BearerCredentialWriter(TOKEN));
    Map<Integer, Object> infos = new TreeMap<>();
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient flight =
            FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
                .build();
        FlightSqlClient sql = new FlightSqlClient(flight);
        FlightStream stream =
            sql.getStream(
                sql.getSqlInfo(new SqlInfo[0], auth).getEndpoints().get(0).getTicket(), auth)) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          int name = (Integer) root.getVector("info_name").getObject(r);
          infos.put(name, sqlInfoValue((DenseUnionVector) root.getVector("value"), r));
        }
      }
    }
    return infos;
  }

  /** A GetSqlInfo value: string, boolean, bigint, int, string list, or int to int-list map. */
  private static Object sqlInfoValue(DenseUnionVector values, int row) {
    Object v = values.getObject(row);
    if (v instanceof org.apache.arrow.vector.util.Text t) {
      return t.toString();
    }
    if (v instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Map) {
      // int32_to_int32_list_map: a list of {key, value} entries
      Map<Integer, List<Integer>> map = new TreeMap<>();
      for (Object e : list) {
        Map<?, ?> entry = (Map<?, ?>) e;
        List<Integer> to = new ArrayList<>();
        for (Object i : (List<?>) entry.get("value")) {
          to.add((Integer) i);
        }
        map.put((Integer) entry.get("key"), to);
      }
      return map;
    }
    return v;
  }

  /** A CAST from a value of one SqlSupportsConvert type to another, in Quiver's SQL. */
  private static String cast(int from, int to) {
    String fromType = sqlType(from);
    String value =
        switch (SqlSupportsConvert.forNumber(from)) {
          case SQL_CONVERT_VARCHAR, SQL_CONVERT_CHAR, SQL_CONVERT_LONGVARCHAR ->
              switch (SqlSupportsConvert.forNumber(to)) {
                case SQL_CONVERT_DATE -> "'2024-02-29'";
                case SQL_CONVERT_TIMESTAMP -> "'2024-02-29 12:34:56'";
                case SQL_CONVERT_BIT -> "'true'";
                default -> "'1'";
              };
          case SQL_CONVERT_BIT -> "TRUE";
          case SQL_CONVERT_DATE -> "DATE '2024-02-29'";
          case SQL_CONVERT_TIMESTAMP -> "TIMESTAMP '2024-02-29 12:34:56'";
          default -> "1";
        };
    return "CAST(CAST(" + value + " AS " + fromType + ") AS " + sqlType(to) + ")";
  }

  private static String sqlType(int convert) {
    return switch (SqlSupportsConvert.forNumber(convert)) {
      case SQL_CONVERT_BIGINT -> "BIGINT";
      case SQL_CONVERT_INTEGER -> "INTEGER";
      case SQL_CONVERT_SMALLINT -> "SMALLINT";
      case SQL_CONVERT_TINYINT -> "TINYINT";
      case SQL_CONVERT_DECIMAL -> "DECIMAL(10, 2)";
      case SQL_CONVERT_NUMERIC -> "NUMERIC(10, 2)";
      case SQL_CONVERT_FLOAT -> "FLOAT";
      case SQL_CONVERT_REAL -> "REAL";
      case SQL_CONVERT_VARCHAR, SQL_CONVERT_LONGVARCHAR -> "VARCHAR";
      case SQL_CONVERT_CHAR -> "CHAR(20)";
      case SQL_CONVERT_BIT -> "BOOLEAN";
      case SQL_CONVERT_DATE -> "DATE";
      case SQL_CONVERT_TIMESTAMP -> "TIMESTAMP";
      default -> throw new AssertionError("no SQL type for " + convert);
    };
  }

  /**
   * SQLLine's {@code !dbinfo} (and DBeaver on connect) call DatabaseMetaData's methods without
   * arguments: every one answers, and the SQL features a BI tool asks about are what Quiver runs
   * (each claim checked with a query against DuckDB).
   */
  @Test
  void dbinfoAsSqlLineCallsItAnswersEveryMethod() throws Exception {
    try (Connection c = connect()) {
      DatabaseMetaData md = c.getMetaData();
      List<String> failed = new ArrayList<>();
      int called = 0;
      for (java.lang.reflect.Method m : DatabaseMetaData.class.getMethods()) {
        boolean info =
            m.getParameterCount() == 0
                && m.getReturnType() != ResultSet.class
                && m.getReturnType() != Connection.class
                && !m.getName().equals("unwrap");
        if (!info) {
          continue;
        }
        called++;
        try {
          m.invoke(md);
        } catch (java.lang.reflect.InvocationTargetException e) {
          if (!(e.getCause() instanceof java.sql.SQLFeatureNotSupportedException)) {
            failed.add(m.getName() + ": " + e.getCause());
          }
        }
      }
      assertThat(called).isGreaterThan(100);
      assertThat(failed).isEmpty();
      assertThat(md.getDefaultTransactionIsolation()).isEqualTo(Connection.TRANSACTION_NONE);
      assertThat(md.supportsTransactions()).isFalse();
      assertThat(md.supportsGroupBy()).isTrue();
      assertThat(md.supportsGroupByUnrelated()).isTrue();
      assertThat(md.supportsOuterJoins()).isTrue();
      assertThat(md.supportsFullOuterJoins()).isTrue();
      assertThat(md.supportsUnion()).isTrue();
      assertThat(md.supportsUnionAll()).isTrue();
      assertThat(md.supportsSubqueriesInExists()).isTrue();
      assertThat(md.supportsSubqueriesInIns()).isTrue();
      assertThat(md.supportsSubqueriesInComparisons()).isTrue();
      assertThat(md.supportsSubqueriesInQuantifieds()).isTrue();
      assertThat(md.supportsCorrelatedSubqueries()).isTrue();
      assertThat(md.supportsOrderByUnrelated()).isTrue();
      assertThat(md.supportsExpressionsInOrderBy()).isTrue();
      assertThat(md.supportsLikeEscapeClause()).isTrue();
      assertThat(md.supportsResultSetType(ResultSet.TYPE_FORWARD_ONLY)).isTrue();
      assertThat(md.getMaxStatementLength()).isPositive();
      for (String sql :
          List.of(
              "SELECT count(*) FROM nation GROUP BY n_regionkey",
              "SELECT n_name FROM nation ORDER BY n_comment LIMIT 3",
              "SELECT n.n_name, r.r_name FROM nation n FULL OUTER JOIN region r"
                  + " ON n.n_regionkey = r.r_regionkey + 1",
              "SELECT n_name FROM nation n LEFT JOIN region r ON n.n_regionkey = r.r_regionkey + 1",
              "SELECT r_name FROM region UNION SELECT n_name FROM nation",
              "SELECT r_regionkey FROM region UNION ALL SELECT n_regionkey FROM nation",
              "SELECT r_name FROM region r WHERE EXISTS"
                  + " (SELECT 1 FROM nation n WHERE n.n_regionkey = r.r_regionkey AND n_nationkey > 20)",
              "SELECT n_name FROM nation WHERE n_regionkey IN (SELECT r_regionkey FROM region"
                  + " WHERE r_name LIKE 'A%')",
              "SELECT n_name FROM nation WHERE n_nationkey > (SELECT avg(n_nationkey) FROM nation)",
              "SELECT n_name FROM nation WHERE n_regionkey >= ALL (SELECT r_regionkey FROM region)",
              "SELECT n_name FROM nation WHERE n_name LIKE 'A!_%' ESCAPE '!'")) {
        checkAgainstDuckDb(c, sql);
      }
      // Names from the function registry and keywords from the parser, not a hand list.
      assertThat(md.getNumericFunctions().split(", ")).contains("abs", "round", "mod");
      assertThat(md.getStringFunctions().split(", ")).contains("upper", "substring", "replace");
      assertThat(md.getTimeDateFunctions().split(", ")).contains("extract", "date_trunc");
      assertThat(md.getSystemFunctions().split(", ")).contains("coalesce", "nullif");
      assertThat(md.getSQLKeywords()).isNotBlank();
      for (String f : (md.getNumericFunctions() + ", " + md.getStringFunctions()).split(", ")) {
        assertThat(f).matches("[a-z_0-9]+");
      }
    }
  }

  @Test
  void attachedCatalogsListTheirNamespacesAndTables() throws Exception {
    try (Connection c = connect()) {
      DatabaseMetaData md = c.getMetaData();
      List<String> schemas = new ArrayList<>();
      try (ResultSet rs = md.getSchemas("lake", null)) {
        while (rs.next()) {
          schemas.add(rs.getString("TABLE_CATALOG") + "." + rs.getString("TABLE_SCHEM"));
        }
      }
      assertThat(schemas).containsExactly("lake.db");
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = md.getTables("lake", "d%", "%", null)) {
        while (rs.next()) {
          tables.add(
              rs.getString("TABLE_CAT")
                  + "."
                  + rs.getString("TABLE_SCHEM")
                  + "."
                  + rs.getString("TABLE_NAME")
                  + ":"
                  + rs.getString("TABLE_TYPE"));
        }
      }
      assertThat(tables).containsExactly("lake.db.times:TABLE");
      List<String> columns = new ArrayList<>();
      try (ResultSet rs = md.getColumns("lake", "db", "times", "%")) {
        while (rs.next()) {
          columns.add(rs.getString("COLUMN_NAME"));
        }
      }
      assertThat(columns).containsExactly("id", "ts", "tstz", "flag");
      assertThat(query(c, "SELECT count(*) FROM lake.db.times").rows())
          .hasSize(1)
          .allSatisfy(
              r ->
                  assertThat(String.valueOf(r.get(0)))
                      .isEqualTo(Integer.toString(lakeTimes.live.size())));
    }
  }

  @Test
  void preparedStatementWithParameters() throws Exception {
    String sql =
        "SELECT l_returnflag, count(*) AS n, sum(l_quantity) AS q FROM lineitem"
            + " WHERE l_quantity < ? AND l_shipdate >= ? AND l_shipmode = ?"
            + " GROUP BY l_returnflag ORDER BY l_returnflag";
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement(sql)) {
      // The result's columns are known at prepare time.
      ResultSetMetaData md = ps.getMetaData();
      assertThat(md.getColumnCount()).isEqualTo(3);
      assertThat(md.getColumnLabel(2)).isEqualTo("n");
      assertThat(ps.getParameterMetaData().getParameterCount()).isEqualTo(3);
      Object[][] bindings = {
        // The driver binds a BigDecimal only at the parameter's scale (DECIMAL(15, 2) here).
        {new BigDecimal("20.00"), LocalDate.of(1995, 1, 1), "AIR"},
        {new BigDecimal("45.50"), LocalDate.of(1993, 6, 17), "TRUCK"}
      };
      for (Object[] b : bindings) {
        ps.setBigDecimal(1, (BigDecimal) b[0]);
        ps.setDate(2, java.sql.Date.valueOf((LocalDate) b[1]));
        ps.setString(3, (String) b[2]);
        QueryResult actual;
        try (ResultSet rs = ps.executeQuery()) {
          actual = JdbcRows.read(rs);
        }
        String literal =
            sql.replaceFirst("\\?", b[0].toString())
                .replaceFirst("\\?", "DATE '" + b[1] + "'")
                .replaceFirst("\\?", "'" + b[2] + "'");
        QueryResult expected = duckdb.query(literal);
        assertThat(expected.rows()).isNotEmpty();
        Differential.check(
            literal, literal, expected, actual, Differential.sortOf(literal, expected));
      }
    }
  }

  @Test
  void ddlAndDmlReturnCountsAndTablesAreSharedButSetIsPerClient() throws Exception {
    try (Connection a = connect();
        Connection b = connect();
        Statement sa = a.createStatement();
        Statement sb = b.createStatement()) {
      assertThat(
              sa.executeUpdate(
                  "CREATE TABLE shared_nations AS SELECT n_nationkey, n_name FROM nation"))
          .isEqualTo(25);
      try (PreparedStatement insert =
          a.prepareStatement("INSERT INTO shared_nations VALUES (?, ?)")) {
        insert.setLong(1, 100);
        insert.setString(2, "ATLANTIS");
        assertThat(insert.executeUpdate()).isEqualTo(1);
        insert.setLong(1, 101);
        insert.setString(2, "LEMURIA");
        insert.addBatch();
        assertThat(insert.executeBatch()).isNotEmpty();
      }
      String ext = TpchData.tableDirectory(data, "region").toString().replace("'", "''");
      assertThat(
              sa.executeUpdate(
                  "CREATE EXTERNAL TABLE ext_region STORED AS PARQUET LOCATION '" + ext + "'"))
          .isEqualTo(0);
      // Client b sees what client a created.
      assertThat(query(b, "SELECT count(*) FROM shared_nations").rows().get(0).get(0))
          .isEqualTo(27L);
      QueryResult regions = query(b, "SELECT r_name FROM ext_region ORDER BY r_name");
      QueryResult expectedRegions = duckdb.query("SELECT r_name FROM region ORDER BY r_name");
      assertThat(regions.rows()).isEqualTo(expectedRegions.rows());
      try (ResultSet rs = b.getMetaData().getTables(null, null, "shared%", null)) {
        assertThat(rs.next()).isTrue();
      }
      // SET is per client: a runs in process from now on, b still on the cluster.
      sa.executeUpdate("SET quiver.distributed.enabled = false");
      String explain = "EXPLAIN SELECT count(*) FROM lineitem";
      assertThat(plan(a, explain)).doesNotContain("job of");
      assertThat(plan(b, explain)).contains("job of");
      assertThat(sa.executeUpdate("DROP TABLE shared_nations")).isEqualTo(0);
      assertThatThrownBy(() -> query(b, "SELECT * FROM shared_nations"))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(causes(e)).contains("shared_nations"));
    }
  }

  @Test
  void updateDeleteConstraintsAndCatalogQueriesOverJdbc() throws Exception {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      assertThat(
              s.executeUpdate(
                  "CREATE TABLE jdbc_k (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL DEFAULT 'anon',"
                      + " region BIGINT)"))
          .isEqualTo(0);
      assertThat(
              s.executeUpdate(
                  "INSERT INTO jdbc_k SELECT n_nationkey, n_name, n_regionkey FROM nation"))
          .isEqualTo(25);
      assertThat(s.executeUpdate("INSERT INTO jdbc_k (id) VALUES (100)")).isEqualTo(1);
      assertThat(
              s.executeUpdate(
                  "UPDATE jdbc_k SET name = lower(name) WHERE region IN (SELECT r_regionkey FROM region"
                      + " WHERE r_name = 'ASIA')"))
          .isEqualTo(5);
      assertThat(s.executeUpdate("DELETE FROM jdbc_k WHERE region = 0")).isEqualTo(5);
      // A broken key is a clear error naming table, column and value; nothing was written.
      assertThatThrownBy(
              () -> s.executeUpdate("INSERT INTO jdbc_k VALUES (101, 'x', 1), (3, 'dup', 1)"))
          .isInstanceOf(SQLException.class)
          .satisfies(
              e ->
                  assertThat(causes(e))
                      .contains(
                          "INSERT INTO jdbc_k: duplicate value 3 in column id breaks PRIMARY KEY (id)"));
      assertThat(query(c, "SELECT count(*), min(name) FROM jdbc_k").rows())
          .containsExactly(List.of(21L, "ARGENTINA"));
      assertThat(query(c, "DESCRIBE jdbc_k").rows())
          .containsExactly(
              Arrays.asList("id", "INTEGER", "NO", "PRI", null, null),
              Arrays.asList("name", "VARCHAR", "NO", null, "'anon'", null),
              Arrays.asList("region", "BIGINT", "YES", null, null, null));
      assertThat(
              query(
                      c,
                      "SELECT table_type FROM information_schema.tables WHERE table_name = 'jdbc_k'")
                  .rows())
          .containsExactly(List.of("BASE TABLE"));
      assertThat(query(c, "SHOW TABLES").rows()).contains(List.of("jdbc_k"));
      assertThat(s.executeUpdate("DROP TABLE jdbc_k")).isEqualTo(0);
    }
  }

  private static String plan(Connection c, String explain) throws SQLException {
    StringBuilder s = new StringBuilder();
    for (List<Object> row : query(c, explain).rows()) {
      s.append(row.get(1)).append('\n');
    }
    return s.toString();
  }

  @Test
  void badSqlIsATypedErrorAndTheConnectionStaysUsable() throws Exception {
    try (Connection c = connect()) {
      assertThatThrownBy(() -> query(c, "SELEC 1"))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(causes(e)).doesNotContain("\tat "));
      assertThatThrownBy(() -> query(c, "SELECT nope FROM nation"))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(causes(e)).contains("nope"));
      checkAgainstDuckDb(c, "SELECT count(*) FROM nation");
    }
  }

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void sixteenConcurrentClientsFiveRoundsEach() throws Exception {
    String[] queries = {
      "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS q, count(*) AS n FROM lineitem"
          + " GROUP BY l_returnflag, l_linestatus",
      "SELECT n_name, count(*) AS c FROM customer JOIN nation ON c_nationkey = n_nationkey"
          + " GROUP BY n_name",
      "SELECT o_orderpriority, count(*) FROM orders WHERE o_orderdate >= DATE '1995-01-01'"
          + " GROUP BY o_orderpriority"
    };
    List<QueryResult> expected = new ArrayList<>();
    for (String q : queries) {
      expected.add(duckdb.query(q));
    }
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<Integer>> clients = new ArrayList<>();
      for (int client = 0; client < 16; client++) {
        int first = client;
        clients.add(
            pool.submit(
                () -> {
                  int checked = 0;
                  try (Connection c = connect()) {
                    for (int round = 0; round < 5; round++) {
                      int i = (first + round) % queries.length;
                      Differential.check(
                          "client " + first + " round " + round,
                          queries[i],
                          expected.get(i),
                          query(c, queries[i]),
                          Differential.sortOf(queries[i], expected.get(i)));
                      checked++;
                    }
                  }
                  return checked;
                }));
      }
      int total = 0;
      for (Future<Integer> f : clients) {
        total += f.get(240, TimeUnit.SECONDS);
      }
      assertThat(total).isEqualTo(80);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void cancelStopsTheJobAndFreesExecutorMemory() throws Exception {
    assertThat(server.scheduler()).as("serve prints its embedded scheduler").isNotNull();
    // lineitem joined with itself on a two-valued key: ~1.8 billion pairs, counted by the
    // executors' tasks, far longer than the test waits.
    String slow =
        "SELECT count(*) FROM lineitem a JOIN lineitem b ON a.l_linestatus = b.l_linestatus"
            + " WHERE a.l_orderkey + b.l_orderkey > 0";
    try (SchedulerClient scheduler = new SchedulerClient(operator());
        Connection c = connect();
        Statement s = c.createStatement()) {
      java.util.Map<String, Long> before = new java.util.HashMap<>();
      for (ExecutorStatus e : scheduler.executors()) {
        before.put(e.getInfo().getExecutorId(), e.getAllocatedBytes());
      }
      ExecutorService runner = Executors.newSingleThreadExecutor();
      try {
        Future<Object> running =
            runner.submit(
                () -> {
                  try (ResultSet rs = s.executeQuery(slow)) {
                    return rs.next();
                  }
                });
        waitFor(
            scheduler,
            "tasks running",
            60,
            e -> e.getRunningTasks() > 0 || e.getActiveTasks() > 0,
            true);
        s.cancel();
        assertThatThrownBy(() -> running.get(60, TimeUnit.SECONDS))
            .hasCauseInstanceOf(SQLException.class);
      } finally {
        runner.shutdownNow();
      }
      // Every executor stops the job's tasks and frees their memory (back to what it held before).
      try {
        waitFor(
            scheduler,
            "no tasks and no more memory than before on every executor",
            60,
            e ->
                e.getRunningTasks() == 0
                    && e.getActiveTasks() == 0
                    && e.getAllocatedBytes()
                        <= before.getOrDefault(e.getInfo().getExecutorId(), 0L),
            false);
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "\nquiver serve's log:\n" + server.log(), e);
      }
      checkAgainstDuckDb(c, "SELECT count(*) FROM orders");
    }
  }

  @Test
  void executorEndpointsServeDistributedResultsFromTheExecutors() throws Exception {
    String scan =
        "SELECT l_orderkey, l_linenumber, l_extendedprice, l_shipdate, l_comment FROM lineitem";
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.executeUpdate("SET quiver.flight_sql.executor_endpoints = true");
      checkAgainstDuckDb(c, scan);
      checkAgainstDuckDb(c, "SELECT l_returnflag, count(*) AS n FROM lineitem GROUP BY 1");
      checkAgainstDuckDb(c, "SELECT n_name FROM nation WHERE n_nationkey > 100");
    }
    // The FlightInfo's endpoints are the executors' Flight servers, not this server.
    CredentialCallOption auth = new CredentialCallOption(new BearerCredentialWriter(TOKEN));
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient flight =
            FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
                .intercept(new ClientCookieMiddleware.Factory())
                .build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      List<String> types = new ArrayList<>();
      try (FlightStream stream =
          sql.getStream(sql.getXdbcTypeInfo(auth).getEndpoints().get(0).getTicket(), auth)) {
        while (stream.next()) {
          for (int r = 0; r < stream.getRoot().getRowCount(); r++) {
            types.add(stream.getRoot().getVector("type_name").getObject(r).toString());
          }
        }
      }
      assertThat(types).contains("INTEGER", "BIGINT", "DECIMAL", "VARCHAR", "DATE", "TIMESTAMP");
      sql.executeUpdate("SET quiver.flight_sql.executor_endpoints = true", auth);
      FlightInfo info = sql.execute(scan, auth);
      assertThat(info.getEndpoints()).hasSizeGreaterThanOrEqualTo(2);
      long rows = 0;
      for (FlightEndpoint e : info.getEndpoints()) {
        assertThat(e.getLocations()).hasSize(1);
        Location at = e.getLocations().get(0);
        assertThat(at.getUri().getPort()).isNotEqualTo(server.port());
        try (FlightClient executor = FlightClient.builder(allocator, at).build();
            FlightStream stream = executor.getStream(e.getTicket(), auth)) {
          while (stream.next()) {
            rows += stream.getRoot().getRowCount();
          }
        }
      }
      assertThat(rows)
          .isEqualTo(duckdb.query("SELECT count(*) FROM lineitem").rows().get(0).get(0));
      // Closing the session releases the job whose output the executors held for this client.
      sql.closeSession(new org.apache.arrow.flight.CloseSessionRequest(), auth);
    }
  }

  /**
   * Waits until {@code condition} holds for some executor ({@code any}) or for every executor; the
   * executors report with their heartbeats.
   */
  private static void waitFor(
      SchedulerClient scheduler,
      String what,
      int seconds,
      java.util.function.Predicate<ExecutorStatus> condition,
      boolean any)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    List<ExecutorStatus> last = List.of();
    while (System.nanoTime() < deadline) {
      last = scheduler.executors();
      boolean holds =
          !last.isEmpty()
              && (any ? last.stream().anyMatch(condition) : last.stream().allMatch(condition));
      if (holds) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("timed out waiting for " + what + ": " + last);
  }
}
