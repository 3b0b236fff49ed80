package dev.quiver.binding.settings;

import java.util.List;

/**
 * The session settings the binding reads (execution, the optimizer, Parquet and S3), with their
 * types, defaults and documentation. Registered with the {@link SettingsRegistry} through {@link
 * java.util.ServiceLoader}.
 */
public final class BindingSettings implements SettingsProvider {
  /** See {@link SessionConfig#TARGET_PARTITIONS}. */
  public static final Setting<Integer> TARGET_PARTITIONS =
      Setting.integer(
          SessionConfig.TARGET_PARTITIONS,
          1,
          () -> Runtime.getRuntime().availableProcessors(),
          "the number of cores",
          "Partitions (and threads) a query is planned for.");

  /** See {@link SessionConfig#BATCH_SIZE}. */
  public static final Setting<Integer> BATCH_SIZE =
      Setting.integer(
          SessionConfig.BATCH_SIZE,
          1,
          8192,
          "Rows per record batch produced by scans and operators.");

  /** See {@link SessionConfig#MEMORY_LIMIT}. */
  public static final Setting<Long> MEMORY_LIMIT =
      Setting.bytes(
          SessionConfig.MEMORY_LIMIT,
          0,
          0,
          "Arrow memory one query may use; 0 means unbounded. Sorts, aggregations, windows and"
              + " hash joins spill to disk past a third of it.");

  /** See {@link SessionConfig#SPILL_DIRECTORY}. */
  public static final Setting<String> SPILL_DIRECTORY =
      Setting.localPath(
          SessionConfig.SPILL_DIRECTORY,
          "the JVM's temporary directory",
          "Directory for spill files.");

  /** Fan-out of a hash join that spills its build side. */
  public static final Setting<Integer> JOIN_SPILL_PARTITIONS =
      Setting.integer(
          "quiver.execution.join_spill_partitions",
          2,
          16,
          "Spill files a hash join splits each input into when its build side does not fit the"
              + " memory pool (a partition still too large splits again).");

  /** Input rows after which a PARTIAL aggregate checks whether it reduces rows. */
  public static final Setting<Long> PARTIAL_AGGREGATION_PROBE_ROWS =
      Setting.longInteger(
          "quiver.execution.partial_aggregation_probe_rows",
          0,
          100_000L,
          "Input rows after which a partial (pre-shuffle) aggregation compares its groups with the"
              + " rows it read; 0 never checks. See partial_aggregation_skip_percent.");

  /** Groups per hundred input rows above which a PARTIAL aggregate stops combining batches. */
  public static final Setting<Integer> PARTIAL_AGGREGATION_SKIP_PERCENT =
      Setting.integer(
          "quiver.execution.partial_aggregation_skip_percent",
          0,
          80,
          "When a partial aggregation has more groups than this percent of the rows it read at"
              + " the check, it stops keeping a table across batches and aggregates each batch on"
              + " its own: the final aggregation does the work either way. 100 or more never"
              + " skips.");

  /** Whether a hash join drops probe rows whose key its build side's bitmap rules out. */
  public static final Setting<Boolean> JOIN_KEY_BITMAP =
      Setting.bool(
          "quiver.execution.join_key_bitmap",
          true,
          "A hash join whose build side has an integer key of narrow range sets a bit per key"
              + " value and drops probe rows whose key misses it before hashing them (INNER, SEMI"
              + " and joins keeping unmatched build rows).");

  /** Largest estimated build side (rows) for which a hash join gathers it whole. */
  public static final Setting<Long> COLLECT_BUILD_THRESHOLD_ROWS =
      Setting.longInteger(
          "quiver.optimizer.hash_join_collect_build_threshold_rows",
          0,
          // One shared table beats hash-partitioning both sides well past 100k rows: TPC-H SF 1
          // repartitioned all of lineitem to meet 228k-730k filtered orders (Q3, Q5, Q21).
          2_000_000L,
          "A hash join whose build side is estimated at no more rows than this collects it once"
              + " for all partitions instead of hash-partitioning both sides.");

  /**
   * Whether a SEMI or ANTI join may gather its smaller left input once for all partitions and merge
   * the partitions' matches of it, which needs every partition in one process.
   */
  public static final Setting<Boolean> SHARED_JOIN_MARKS =
      Setting.bool(
          "quiver.optimizer.shared_join_marks",
          true,
          "A SEMI or ANTI join (EXISTS, IN) whose left input is the smaller gathers that input once"
              + " and marks the rows every partition of the right input matches; the partitions"
              + " must run in one process. A distributed planner turns this off for the plans it"
              + " ships.");

  /**
   * Whether a SEMI or ANTI join may gather its smaller left input into every partition, have each
   * partition mark it against its share of the right input, and merge the marks afterwards: what a
   * distributed plan does where {@link #SHARED_JOIN_MARKS} needs one process.
   */
  public static final Setting<Boolean> MERGED_JOIN_MARKS =
      Setting.bool(
          "quiver.optimizer.merged_join_marks",
          true,
          "Where shared_join_marks cannot apply (a distributed plan), a SEMI or ANTI join whose"
              + " left input is the smaller sends that input, sorted, to every partition of the"
              + " right input; each marks the rows it matches and one task merges the marks,"
              + " instead of repartitioning the right input.");

  /**
   * Whether a subplan that a query reads more than once (a WITH view or view used twice, a repeated
   * subquery) is computed once for all its readers.
   */
  public static final Setting<Boolean> SHARE_SUBPLANS =
      Setting.bool(
          "quiver.optimizer.share_subplans",
          true,
          "A deterministic subplan with a join or aggregate that a query reads more than once (a"
              + " WITH view or view used twice, a repeated subquery) is computed once and its rows"
              + " are handed to every reader (spilled when the memory pool refuses them). A"
              + " distributed planner turns this off for the plans it ships, which share such"
              + " stages through quiver.distributed.reuse_exchanges instead.");

  /** Which subquery unnesting removes correlated subqueries. */
  public static final Setting<String> UNNESTING =
      Setting.oneOf(
          "quiver.optimizer.unnesting",
          List.of("calcite", "quiver"),
          "calcite",
          "calcite",
          "How correlated subqueries become joins: calcite (Calcite's decorrelator and Quiver's"
              + " passes around it) or quiver (Quiver's own unnesting over the de-duplicated outer"
              + " values; a query shape it does not handle falls back to calcite).");

  /** Whether Parquet files are read with Quiver's own row-group reader. */
  public static final Setting<Boolean> PARQUET_ROW_GROUP_READER =
      Setting.bool(
          "quiver.parquet.row_group_reader",
          true,
          "Split Parquet files into row-group ranges, so that one file is read by several"
              + " partitions; false makes every file one split, read whole.");

  /**
   * Whether a filter right above a Parquet scan is evaluated while reading (late materialization).
   */
  public static final Setting<Boolean> PARQUET_LATE_MATERIALIZATION =
      Setting.bool(
          "quiver.parquet.late_materialization",
          true,
          "A filter right above a Parquet scan is evaluated as the scan reads: the filter's"
              + " columns are decoded first and the other columns only for the rows that pass,"
              + " pages with none of them skipped undecoded (filters with LIKE, functions or"
              + " string tests stay in the filter operator).");

  /** What a zero divisor gives: an error (PostgreSQL's rule) or NULL. */
  public static final Setting<String> DIVISION_BY_ZERO =
      Setting.oneOf(
          "quiver.sql.division_by_zero",
          List.of("error", "null"),
          "error",
          "error",
          "What x / 0, x % 0 and MOD(x, 0) give, for integers, decimals and floating point alike:"
              + " error (as PostgreSQL) or null.");

  /** Longest SQL text a session parses, checked before parsing. */
  public static final Setting<Long> MAX_STATEMENT_BYTES =
      Setting.bytes(
          "quiver.sql.max_statement_bytes",
          1,
          4L << 20,
          "Longest SQL text (UTF-8 bytes, a whole script) parsed; longer text is refused before"
              + " parsing with StatementTooLargeException. A server checks its own value, which"
              + " its clients' SET cannot raise.");

  /** See {@link SessionConfig#S3_ENDPOINT}. */
  public static final Setting<String> S3_ENDPOINT =
      Setting.text(
          SessionConfig.S3_ENDPOINT,
          "an http:// or https:// URL with a host",
          "the AWS SDK's (AWS_ENDPOINT_URL)",
          "Endpoint of an S3-compatible store, e.g. http://127.0.0.1:9000.",
          BindingSettings::checkEndpoint);

  /** See {@link SessionConfig#S3_REGION}. */
  public static final Setting<String> S3_REGION =
      Setting.text(
          SessionConfig.S3_REGION,
          "the AWS SDK's, else us-east-1",
          "Region S3 requests are signed for.");

  /** See {@link SessionConfig#S3_PATH_STYLE}. */
  public static final Setting<Boolean> S3_PATH_STYLE =
      Setting.bool(
          SessionConfig.S3_PATH_STYLE,
          null,
          "true when an endpoint is set",
          "Path-style S3 URLs (the bucket in the path rather than the host name).");

  /** See {@link SessionConfig#S3_ACCESS_KEY_ID}. */
  public static final Setting<String> S3_ACCESS_KEY_ID =
      Setting.text(
          SessionConfig.S3_ACCESS_KEY_ID,
          "the AWS SDK's chain",
          "S3 access key id; with the secret it replaces the AWS SDK's default credentials.");

  /** See {@link SessionConfig#S3_SECRET_ACCESS_KEY}. */
  public static final Setting<String> S3_SECRET_ACCESS_KEY =
      Setting.secretText(
          SessionConfig.S3_SECRET_ACCESS_KEY,
          "S3 secret access key (never shown in logs, errors, plans or job status).");

  /** See {@link SessionConfig#S3_SESSION_TOKEN}. */
  public static final Setting<String> S3_SESSION_TOKEN =
      Setting.secretText(
          SessionConfig.S3_SESSION_TOKEN, "S3 session token of temporary credentials.");

  /** Used by {@link java.util.ServiceLoader}. */
  public BindingSettings() {}

  @Override
  public List<Setting<?>> settings() {
    return List.of(
        TARGET_PARTITIONS,
        BATCH_SIZE,
        MEMORY_LIMIT,
        SPILL_DIRECTORY,
        JOIN_SPILL_PARTITIONS,
        PARTIAL_AGGREGATION_PROBE_ROWS,
        PARTIAL_AGGREGATION_SKIP_PERCENT,
        JOIN_KEY_BITMAP,
        COLLECT_BUILD_THRESHOLD_ROWS,
        SHARED_JOIN_MARKS,
        MERGED_JOIN_MARKS,
        SHARE_SUBPLANS,
        UNNESTING,
        PARQUET_ROW_GROUP_READER,
        PARQUET_LATE_MATERIALIZATION,
        DIVISION_BY_ZERO,
        MAX_STATEMENT_BYTES,
        S3_ENDPOINT,
        S3_REGION,
        S3_PATH_STYLE,
        S3_ACCESS_KEY_ID,
        S3_SECRET_ACCESS_KEY,
        S3_SESSION_TOKEN);
  }

  /** Accepts a blank value (unset) or an http(s) URL with a host. */
  private static String checkEndpoint(String endpoint) {
    if (endpoint.isBlank()) {
      return endpoint;
    }
    java.net.URI u = java.net.URI.create(endpoint.trim());
    if (u.getHost() == null || !("http".equals(u.getScheme()) || "https".equals(u.getScheme()))) {
      throw new IllegalArgumentException(endpoint);
    }
    return endpoint;
  }
}
