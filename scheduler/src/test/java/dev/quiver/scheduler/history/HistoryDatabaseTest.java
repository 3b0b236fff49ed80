package dev.quiver.scheduler.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.scheduler.config.History;
import dev.quiver.scheduler.job.JobArchive;
import dev.quiver.scheduler.job.JobViews.JobDetail;
import dev.quiver.scheduler.job.JobViews.JobSummary;
import dev.quiver.scheduler.job.JobViews.OperatorView;
import dev.quiver.scheduler.job.JobViews.StageView;
import dev.quiver.scheduler.job.JobViews.TaskView;
import dev.quiver.scheduler.job.RecentJobs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The history database on a real file: schema, reopen, retention, and what makes it unusable. */
@Timeout(60)
class HistoryDatabaseTest {
  private static final long DAY = Duration.ofDays(1).toMillis();

  @TempDir Path dir;

  private final AtomicLong now = new AtomicLong(100 * DAY);

  private HistoryDatabase open(int maxJobs, Duration maxAge) throws Exception {
    return HistoryDatabase.open(new History(dir, maxJobs, maxAge), now::get);
  }

  /** The rows of the jobs table, read past the store. */
  private int rowsInFile() throws Exception {
    try (Connection c =
            DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("history"), "", "");
        Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT COUNT(*) FROM jobs")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static JobSummary summary(String id, String state, long finishedAt, String error) {
    return new JobSummary(
        id,
        "SELECT count(*) FROM t -- " + id,
        "ann",
        state,
        finishedAt - 3_000,
        finishedAt - 2_000,
        finishedAt,
        2,
        2,
        5,
        5,
        1,
        1_234,
        7,
        error,
        "etl",
        0,
        56_789,
        error == null ? null : "QuiverException",
        false,
        0,
        java.util.Map.of());
  }

  private static JobDetail detail(JobSummary s) {
    TaskView task =
        new TaskView(0, 0, 1, "SUCCEEDED", "exec-1", "h", 7, 70, 0, 5, 1, 6, 0, 0, List.of());
    StageView scan =
        new StageView(
            1,
            4,
            4,
            List.of(),
            1,
            "hash(a)",
            "SHUFFLE",
            "ScanExec: t",
            "",
            List.of(task, task, task, task),
            List.of(new OperatorView(0, "ScanExec", 4, 1_227, 4, 9, 3, 0, 100)));
    StageView fin =
        new StageView(
            2, 1, 1, List.of(1), 1, "", "", "AggregateExec", "", List.of(task), List.of());
    return new JobDetail(s, List.of(scan, fin), 2, "digraph stages {}\n");
  }

  @Test
  void aJobKeptSurvivesReopeningWithItsStagesButNotItsTasks() throws Exception {
    JobSummary failed = summary("job-1-aa", "FAILED", now.get() - 10, "no such table: t");
    try (HistoryDatabase db = open(10, Duration.ofDays(30))) {
      db.record(detail(summary("job-2-bb", "SUCCEEDED", now.get() - 5, null)));
      db.record(detail(failed));
    }
    assertThat(dir.resolve("history.mv.db")).isRegularFile();

    try (HistoryDatabase db = open(10, Duration.ofDays(30))) {
      List<JobSummary> listed = db.recent(0, 10, Set.of());
      assertThat(listed).extracting(JobSummary::id).containsExactly("job-2-bb", "job-1-aa");
      JobSummary back = listed.get(1);
      // As recorded, but from the history: nothing of it runs.
      assertThat(back).isEqualTo(failed.inHistory());
      assertThat(back.tasksRunning()).isZero();
      assertThat(back.fromHistory()).isTrue();
      assertThat(back.errorType()).isEqualTo("QuiverException");

      JobDetail d = db.find("job-1-aa").orElseThrow();
      assertThat(d.summary()).isEqualTo(back);
      assertThat(d.finalStageId()).isEqualTo(2);
      assertThat(d.dot()).isEqualTo("digraph stages {}\n");
      assertThat(d.stages()).extracting(StageView::id).containsExactly(1, 2);
      assertThat(d.stages().get(0).tasks()).isEmpty();
      assertThat(d.stages().get(0).taskCount()).isEqualTo(4);
      assertThat(d.stages().get(0).operators())
          .containsExactly(new OperatorView(0, "ScanExec", 4, 1_227, 4, 9, 3, 0, 100));
      assertThat(d.stages().get(1).inputs()).containsExactly(1);
      assertThat(db.find("job-9-zz")).isEmpty();
    }
  }

  @Test
  void recordingAJobAgainReplacesItAndKeepsItsPlace() throws Exception {
    try (HistoryDatabase db = open(10, Duration.ofDays(30))) {
      db.record(detail(summary("job-1-aa", "CANCELLED", now.get() - 20, null)));
      db.record(detail(summary("job-2-bb", "SUCCEEDED", now.get() - 10, null)));
      JobSummary later =
          summary("job-1-aa", "CANCELLED", now.get() - 20, "cancelled by the client");
      db.record(detail(later));
      assertThat(db.recent(0, 10, Set.of()))
          .extracting(JobSummary::id, JobSummary::error)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("job-2-bb", null),
              org.assertj.core.groups.Tuple.tuple("job-1-aa", "cancelled by the client"));
    }
  }

  @Test
  void pagesSkipAndLeaveOutTheJobsStillRemembered() throws Exception {
    try (HistoryDatabase db = open(100, Duration.ofDays(30))) {
      for (int i = 1; i <= 7; i++) {
        db.record(detail(summary("job-" + i, "SUCCEEDED", now.get() - 100 + i, null)));
      }
      assertThat(db.recent(0, 3, Set.of("job-7", "job-5")))
          .extracting(JobSummary::id)
          .containsExactly("job-6", "job-4", "job-3");
      assertThat(db.recent(3, 3, Set.of("job-7", "job-5")))
          .extracting(JobSummary::id)
          .containsExactly("job-2", "job-1");
    }
  }

  @Test
  void theOldestJobsGoBeyondTheMaxCount() throws Exception {
    try (HistoryDatabase db = open(3, Duration.ofDays(30))) {
      for (int i = 1; i <= 5; i++) {
        db.record(detail(summary("job-" + i, "SUCCEEDED", now.get() - 100 + i, null)));
      }
      assertThat(db.recent(0, 10, Set.of()))
          .extracting(JobSummary::id)
          .containsExactly("job-5", "job-4", "job-3");
      assertThat(db.find("job-1")).isEmpty();
    }
    // A smaller max applies at the next open.
    try (HistoryDatabase db = open(1, Duration.ofDays(30))) {
      assertThat(db.recent(0, 10, Set.of())).extracting(JobSummary::id).containsExactly("job-5");
    }
  }

  @Test
  void jobsOlderThanTheMaxAgeGo() throws Exception {
    try (HistoryDatabase db = open(100, Duration.ofDays(7))) {
      db.record(detail(summary("job-old", "SUCCEEDED", now.get() - 8 * DAY, null)));
      db.record(detail(summary("job-week", "SUCCEEDED", now.get() - 6 * DAY, null)));
      db.record(detail(summary("job-new", "SUCCEEDED", now.get() - 1_000, null)));
      assertThat(db.recent(0, 10, Set.of()))
          .extracting(JobSummary::id)
          .containsExactly("job-new", "job-week");
      // Two days on, without a new job: the week-old one is out of the lists at once.
      now.addAndGet(2 * DAY);
      assertThat(db.recent(0, 10, Set.of())).extracting(JobSummary::id).containsExactly("job-new");
      assertThat(db.find("job-week")).isEmpty();
    }
    // And out of the file after the next open.
    assertThat(rowsInFile()).isEqualTo(2);
    try (HistoryDatabase db = open(100, Duration.ofDays(7))) {
      assertThat(db.recent(0, 10, Set.of())).extracting(JobSummary::id).containsExactly("job-new");
    }
    assertThat(rowsInFile()).isEqualTo(1);
  }

  @Test
  void aCorruptDatabaseIsRefusedByNameAndTheSchedulerKeepsJobsInMemory() throws Exception {
    Files.write(
        dir.resolve("history.mv.db"), "not an H2 file, just garbage\n".repeat(300).getBytes());
    assertThatThrownBy(() -> open(10, Duration.ofDays(30)))
        .isInstanceOf(HistoryUnavailableException.class)
        .hasMessageContaining(dir.resolve("history.mv.db").toString())
        .hasMessageContaining("cannot be opened");

    try (JobArchive fallback = JobHistory.open(new History(dir, 10, Duration.ofDays(30)))) {
      assertThat(fallback).isInstanceOf(RecentJobs.class);
      fallback.record(detail(summary("job-1", "SUCCEEDED", now.get(), null)));
      assertThat(fallback.recent(0, 10, Set.of()))
          .extracting(JobSummary::id)
          .containsExactly("job-1");
    }
    // The file is left for the operator to look at.
    assertThat(Files.readString(dir.resolve("history.mv.db"))).startsWith("not an H2 file");
  }

  @Test
  void aStateFolderThatCannotBeCreatedIsRefusedByName() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    History settings = new History(file.resolve("state"), 10, Duration.ofDays(30));
    assertThatThrownBy(() -> HistoryDatabase.open(settings, now::get))
        .isInstanceOf(HistoryUnavailableException.class)
        .hasMessageContaining("state folder " + file.resolve("state"))
        .hasMessageContaining("cannot be created");
    try (JobArchive fallback = JobHistory.open(settings)) {
      assertThat(fallback).isInstanceOf(RecentJobs.class);
    }
  }

  @Test
  void aDatabaseOfANewerSchemaIsLeftUntouched() throws Exception {
    try (HistoryDatabase db = open(10, Duration.ofDays(30))) {
      db.record(detail(summary("job-1", "SUCCEEDED", now.get(), null)));
    }
    try (Connection c =
            DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("history"), "", "");
        Statement st = c.createStatement()) {
      st.execute("UPDATE history_schema SET version = " + (HistoryDatabase.SCHEMA_VERSION + 1));
    }
    assertThatThrownBy(() -> open(10, Duration.ofDays(30)))
        .isInstanceOf(HistoryUnavailableException.class)
        .hasMessageContaining("schema version " + (HistoryDatabase.SCHEMA_VERSION + 1))
        .hasMessageContaining("newer Quiver");
    assertThat(rowsInFile()).isEqualTo(1);
  }

  @Test
  void withoutAStateFolderTheLastJobsAreKeptInMemory() {
    try (JobArchive memory = JobHistory.open(History.DEFAULT)) {
      assertThat(memory).isInstanceOf(RecentJobs.class);
      for (int i = 0; i <= History.IN_MEMORY_JOBS; i++) {
        memory.record(detail(summary("job-" + i, "SUCCEEDED", now.get(), null)));
      }
      assertThat(memory.recent(0, 1_000, Set.of())).hasSize(History.IN_MEMORY_JOBS);
      assertThat(memory.find("job-0")).isEmpty();
      // In memory, the tasks stay.
      assertThat(memory.find("job-1").orElseThrow().stages().get(0).tasks()).hasSize(4);
    }
  }
}
