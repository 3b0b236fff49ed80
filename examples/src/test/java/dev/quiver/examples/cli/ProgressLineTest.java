package dev.quiver.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.decorators.JobProgress;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ProgressLineTest {
  private static JobProgress progress(int stagesDone, int tasksDone, long rows) {
    return new JobProgress("job-1", "RUNNING", stagesDone, 4, tasksDone, 40, 2, rows, 0, 0, "etl");
  }

  @Test
  void formatsStagesTasksRowsAndTime() {
    assertThat(ProgressLine.format(progress(1, 10, 1_234_567), 3_250))
        .isEqualTo(
            "[######..................]  25%  stages 1/4  tasks 10/40  1,234,567 rows  3.3 s");
    assertThat(ProgressLine.format(progress(4, 40, 5), 61_000))
        .startsWith("[########################] 100%  stages 4/4  tasks 40/40");
  }

  @Test
  void showsTheQueuePositionWhileTheJobWaitsForAdmission() {
    JobProgress queued = new JobProgress("job-1", "QUEUED", 0, 4, 0, 40, 0, 0, 0, 3, "etl");
    assertThat(ProgressLine.format(queued, 1_400))
        .isEqualTo("queued in resource group 'etl': position 3  1.4 s");
  }

  @Test
  void drawsOnlyAfterASecondAndErasesItselfAtTheEnd() throws Exception {
    StringWriter out = new StringWriter();
    AtomicReference<Optional<JobProgress>> current =
        new AtomicReference<>(Optional.of(progress(0, 3, 10)));
    try (ProgressLine line =
        ProgressLine.start(current::get, new PrintWriter(out), ProgressLine.Mode.always)) {
      line.tick();
      assertThat(out.toString()).as("nothing before a second").isEmpty();
      Thread.sleep(ProgressLine.DELAY_MILLIS + 300);
      current.set(Optional.of(progress(2, 30, 1000)));
      line.tick();
      assertThat(out.toString()).contains("\r[").contains("tasks 30/40");
    }
    String all = out.toString();
    // The last thing written blanks the line and returns to its start.
    assertThat(all).endsWith("\r");
    String last = all.substring(all.lastIndexOf('\r', all.length() - 2) + 1, all.length() - 1);
    assertThat(last).isBlank();
  }

  @Test
  void neverDrawsWhenDisabledOrWithoutADistributedJob() throws Exception {
    StringWriter out = new StringWriter();
    try (ProgressLine line =
        ProgressLine.start(
            () -> Optional.of(progress(1, 1, 1)), new PrintWriter(out), ProgressLine.Mode.never)) {
      Thread.sleep(ProgressLine.DELAY_MILLIS + 300);
      line.tick();
    }
    assertThat(out.toString()).isEmpty();
    StringWriter local = new StringWriter();
    try (ProgressLine line =
        ProgressLine.start(Optional::empty, new PrintWriter(local), ProgressLine.Mode.always)) {
      Thread.sleep(ProgressLine.DELAY_MILLIS + 300);
      line.tick();
    }
    assertThat(local.toString()).isEmpty();
  }
}
