package dev.quiver.scheduler.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.scheduler.config.History;
import dev.quiver.scheduler.job.JobArchive;
import dev.quiver.scheduler.job.JobViews.JobDetail;
import dev.quiver.scheduler.job.JobViews.JobSummary;
import dev.quiver.scheduler.job.JobViews.StageView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finished jobs in an H2 database file ({@value #FILE_NAME}) of the scheduler's state folder: one
 * row a job with its summary, its stages without their tasks (as JSON) and its stage graph. Pruned
 * to the newest {@code maxJobs} jobs and to those younger than {@code maxAge} on every record and
 * at open. Plain JDBC on one connection, used on the job loop only.
 *
 * <p>The schema carries a version ({@link #SCHEMA_VERSION}, table {@code history_schema}): a later
 * release migrates older versions on open; a database written by a newer release is not touched.
 */
final class HistoryDatabase implements JobArchive {
  private static final Logger LOG = LoggerFactory.getLogger(HistoryDatabase.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The database's file name in the state folder (H2 adds {@code .mv.db}). */
  static final String FILE_NAME = "history";

  /** The schema this release writes. */
  static final int SCHEMA_VERSION = 1;

  /** Longest error message kept; longer ones are cut. */
  private static final int MAX_ERROR_CHARS = 16_384;

  /** How often a failing database is reported in the log, at most. */
  private static final long WARN_EVERY_MILLIS = TimeUnit.MINUTES.toMillis(1);

  private static final String SUMMARY_COLUMNS =
      "id, sql_text, user_name, resource_group, state, submitted_at, started_at, finished_at,"
          + " stages_done, stages_total, tasks_done, tasks_total, rows_written, result_rows,"
          + " bytes_written, error_type, error_message";

  private final Path file;
  private final Connection db;
  private final int maxJobs;
  private final long maxAgeMillis;
  private final LongSupplier nowMillis;
  private long lastWarnMillis = Long.MIN_VALUE;

  private HistoryDatabase(
      Path file, Connection db, int maxJobs, long maxAgeMillis, LongSupplier nowMillis) {
    this.file = file;
    this.db = db;
    this.maxJobs = maxJobs;
    this.maxAgeMillis = maxAgeMillis;
    this.nowMillis = nowMillis;
  }

  /**
   * Opens (creating it when missing) the database in {@code settings}' state folder, jobs aged on
   * {@code nowMillis} (Unix epoch milliseconds).
   *
   * @throws HistoryUnavailableException when the folder cannot be created, the file is corrupt or
   *     locked by another process, or its schema is newer than this release's
   */
  static HistoryDatabase open(History settings, LongSupplier nowMillis)
      throws HistoryUnavailableException {
    Path dir = settings.stateDir().toAbsolutePath();
    Path file = dir.resolve(FILE_NAME + ".mv.db");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new HistoryUnavailableException(
          "the state folder " + dir + " cannot be created: " + e, e);
    }
    Connection db;
    try {
      // DB_CLOSE_ON_EXIT=FALSE: the scheduler's own shutdown closes it after the last job ends.
      // WRITE_DELAY=0: a commit reaches the file at once, so a killed scheduler loses no job.
      db =
          DriverManager.getConnection(
              "jdbc:h2:file:"
                  + dir.resolve(FILE_NAME)
                  + ";DB_CLOSE_ON_EXIT=FALSE;TRACE_LEVEL_FILE=0;WRITE_DELAY=0",
              "",
              "");
    } catch (SQLException e) {
      throw new HistoryUnavailableException(
          "the history database " + file + " cannot be opened (" + firstLine(e) + ")", e);
    }
    HistoryDatabase h =
        new HistoryDatabase(file, db, settings.maxJobs(), settings.maxAge().toMillis(), nowMillis);
    try {
      h.migrate();
      h.prune();
    } catch (SQLException | HistoryUnavailableException e) {
      h.close();
      if (e instanceof HistoryUnavailableException u) {
        throw u;
      }
      throw new HistoryUnavailableException(
          "the history database " + file + " is not usable (" + firstLine(e) + ")", e);
    }
    return h;
  }

  /** The database file. */
  Path file() {
    return file;
  }

  /** Creates the schema in a new database, or checks (and later: migrates) an existing one's. */
  private void migrate() throws SQLException, HistoryUnavailableException {
    try (Statement st = db.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS history_schema (version INT NOT NULL)");
      int version = 0;
      try (ResultSet rs = st.executeQuery("SELECT MAX(version) FROM history_schema")) {
        if (rs.next()) {
          version = rs.getInt(1);
        }
      }
      if (version > SCHEMA_VERSION) {
        throw new HistoryUnavailableException(
            "the history database "
                + file
                + " has schema version "
                + version
                + ", written by a newer Quiver; this one knows up to "
                + SCHEMA_VERSION
                + " and leaves it untouched",
            null);
      }
      if (version == 0) {
        st.execute(
            "CREATE TABLE jobs ("
                + "seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
                + " id VARCHAR(256) NOT NULL UNIQUE,"
                + " sql_text VARCHAR NOT NULL,"
                + " user_name VARCHAR NOT NULL,"
                + " resource_group VARCHAR NOT NULL,"
                + " state VARCHAR(16) NOT NULL,"
                + " submitted_at BIGINT NOT NULL,"
                + " started_at BIGINT NOT NULL,"
                + " finished_at BIGINT NOT NULL,"
                + " stages_done INT NOT NULL,"
                + " stages_total INT NOT NULL,"
                + " tasks_done INT NOT NULL,"
                + " tasks_total INT NOT NULL,"
                + " rows_written BIGINT NOT NULL,"
                + " result_rows BIGINT NOT NULL,"
                + " bytes_written BIGINT NOT NULL,"
                + " error_type VARCHAR,"
                + " error_message VARCHAR,"
                + " final_stage_id INT NOT NULL,"
                + " stages_json CHARACTER LARGE OBJECT NOT NULL,"
                + " dot CHARACTER LARGE OBJECT NOT NULL)");
        st.execute("CREATE INDEX jobs_finished ON jobs (finished_at, seq)");
        st.execute("INSERT INTO history_schema VALUES (" + SCHEMA_VERSION + ")");
      }
    }
  }

  @Override
  public void record(JobDetail job) {
    try {
      String stages = JSON.writeValueAsString(withoutTasks(job.stages()));
      String update =
          "UPDATE jobs SET " + String.join(" = ?, ", WRITTEN_COLUMNS) + " = ? WHERE id = ?";
      if (write(update, job, stages) == 0) {
        write(
            "INSERT INTO jobs ("
                + String.join(", ", WRITTEN_COLUMNS)
                + ", id) VALUES ("
                + "?, ".repeat(WRITTEN_COLUMNS.size())
                + "?)",
            job,
            stages);
        prune();
      }
    } catch (SQLException | JsonProcessingException e) {
      warn("could not keep job " + job.summary().id(), e);
    }
  }

  /** The columns a job's row is written with, in the order {@link #write} binds them, id last. */
  private static final List<String> WRITTEN_COLUMNS =
      List.of(
          "sql_text",
          "user_name",
          "resource_group",
          "state",
          "submitted_at",
          "started_at",
          "finished_at",
          "stages_done",
          "stages_total",
          "tasks_done",
          "tasks_total",
          "rows_written",
          "result_rows",
          "bytes_written",
          "error_type",
          "error_message",
          "final_stage_id",
          "stages_json",
          "dot");

  /** Runs {@code sql} with {@link #WRITTEN_COLUMNS}' values of {@code job}, then its id. */
  private int write(String sql, JobDetail job, String stages) throws SQLException {
    try (PreparedStatement ps = db.prepareStatement(sql)) {
      int i = bindSummary(ps, job.summary(), 1);
      ps.setInt(i++, job.finalStageId());
      ps.setString(i++, stages);
      ps.setString(i++, job.dot());
      ps.setString(i, job.summary().id());
      return ps.executeUpdate();
    }
  }

  /**
   * Binds the summary's columns from {@code first} on, in {@link #SUMMARY_COLUMNS}' order after id.
   */
  private static int bindSummary(PreparedStatement ps, JobSummary s, int first)
      throws SQLException {
    int i = first;
    ps.setString(i++, s.name());
    ps.setString(i++, s.user());
    ps.setString(i++, s.resourceGroup());
    ps.setString(i++, s.state());
    ps.setLong(i++, s.submittedAtMillis());
    ps.setLong(i++, s.startedAtMillis());
    ps.setLong(i++, s.finishedAtMillis());
    ps.setInt(i++, s.stagesDone());
    ps.setInt(i++, s.stagesTotal());
    ps.setInt(i++, s.tasksDone());
    ps.setInt(i++, s.tasksTotal());
    ps.setLong(i++, s.rows());
    ps.setLong(i++, s.resultRows());
    ps.setLong(i++, s.bytes());
    ps.setString(i++, s.errorType());
    String error = s.error();
    ps.setString(
        i++,
        error == null || error.length() <= MAX_ERROR_CHARS
            ? error
            : error.substring(0, MAX_ERROR_CHARS) + "…");
    return i;
  }

  @Override
  public List<JobSummary> recent(int offset, int limit, Set<String> except) {
    List<JobSummary> out = new ArrayList<>();
    try (PreparedStatement ps =
        db.prepareStatement(
            "SELECT "
                + SUMMARY_COLUMNS
                + " FROM jobs WHERE finished_at >= ? AND NOT (id = ANY(?))"
                + " ORDER BY finished_at DESC, seq DESC LIMIT ? OFFSET ?")) {
      ps.setLong(1, nowMillis.getAsLong() - maxAgeMillis);
      ps.setArray(2, db.createArrayOf("VARCHAR", except.toArray()));
      ps.setInt(3, limit);
      ps.setInt(4, offset);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(summary(rs));
        }
      }
    } catch (SQLException e) {
      warn("could not list the job history", e);
    }
    return out;
  }

  @Override
  public Optional<JobDetail> find(String id) {
    try (PreparedStatement ps =
        db.prepareStatement(
            "SELECT "
                + SUMMARY_COLUMNS
                + ", final_stage_id, stages_json, dot FROM jobs WHERE id = ? AND finished_at >= ?")) {
      ps.setString(1, id);
      ps.setLong(2, nowMillis.getAsLong() - maxAgeMillis);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        List<StageView> stages =
            JSON.readValue(rs.getString("stages_json"), new TypeReference<List<StageView>>() {});
        return Optional.of(
            new JobDetail(
                summary(rs),
                List.copyOf(stages),
                rs.getInt("final_stage_id"),
                rs.getString("dot")));
      }
    } catch (SQLException | JsonProcessingException e) {
      warn("could not read job " + id + " from the history", e);
      return Optional.empty();
    }
  }

  private static JobSummary summary(ResultSet rs) throws SQLException {
    return new JobSummary(
        rs.getString("id"),
        rs.getString("sql_text"),
        rs.getString("user_name"),
        rs.getString("state"),
        rs.getLong("submitted_at"),
        rs.getLong("started_at"),
        rs.getLong("finished_at"),
        rs.getInt("stages_done"),
        rs.getInt("stages_total"),
        rs.getInt("tasks_done"),
        rs.getInt("tasks_total"),
        0,
        rs.getLong("rows_written"),
        rs.getLong("result_rows"),
        rs.getString("error_message"),
        rs.getString("resource_group"),
        0,
        rs.getLong("bytes_written"),
        rs.getString("error_type"),
        true,
        // Memory peaks are not kept in the history (schema version 1).
        0,
        Map.of());
  }

  /** The stages as kept: their tasks dropped (thousands of rows a job), operators kept. */
  private static List<StageView> withoutTasks(List<StageView> stages) {
    List<StageView> out = new ArrayList<>();
    for (StageView s : stages) {
      out.add(
          new StageView(
              s.id(),
              s.taskCount(),
              s.tasksSucceeded(),
              s.inputs(),
              s.outputPartitions(),
              s.partitioning(),
              s.boundary(),
              s.planText(),
              s.adaptive(),
              List.of(),
              s.operators()));
    }
    return out;
  }

  /** Drops jobs older than the max age, then the oldest beyond the max count. */
  private void prune() throws SQLException {
    try (PreparedStatement ps = db.prepareStatement("DELETE FROM jobs WHERE finished_at < ?")) {
      ps.setLong(1, nowMillis.getAsLong() - maxAgeMillis);
      ps.executeUpdate();
    }
    long count;
    try (Statement st = db.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM jobs")) {
      rs.next();
      count = rs.getLong(1);
    }
    if (count > maxJobs) {
      try (PreparedStatement ps =
          db.prepareStatement(
              "DELETE FROM jobs WHERE seq IN (SELECT seq FROM jobs ORDER BY finished_at, seq"
                  + " LIMIT ?)")) {
        ps.setLong(1, count - maxJobs);
        ps.executeUpdate();
      }
    }
  }

  /** Logs a failure of the database, at most once a minute: the scheduler runs on without it. */
  private void warn(String what, Exception e) {
    long now = nowMillis.getAsLong();
    if (now - lastWarnMillis >= WARN_EVERY_MILLIS || lastWarnMillis == Long.MIN_VALUE) {
      lastWarnMillis = now;
      LOG.warn("job history {}: {} ({})", file, what, firstLine(e));
    } else {
      LOG.debug("job history {}: {}", file, what, e);
    }
  }

  private static String firstLine(Exception e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  @Override
  public void close() {
    try {
      if (!db.isClosed()) {
        db.close();
      }
    } catch (SQLException e) {
      LOG.warn("job history {} did not close cleanly: {}", file, firstLine(e));
    }
  }
}
