package dev.quiver.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shell driven through a JLine terminal over streams: multi-line statements, the history file,
 * {@code \d}, {@code \timing}, and Ctrl-C (SIGINT raised on the terminal) cancelling a long query
 * without ending the shell.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShellTest {
  @TempDir Path dir;

  @Test
  void multiLineHistoryDescribeTimingAndCtrlC() throws Exception {
    Path csv = dir.resolve("t.csv");
    Files.writeString(csv, "id,name\n1,alpha\n2,beta\n3,gamma\n");
    Path history = dir.resolve("history");
    PipedOutputStream keys = new PipedOutputStream();
    PipedInputStream in = new PipedInputStream(keys, 1 << 16);
    ByteArrayOutputStream screen = new ByteArrayOutputStream();
    StringWriter errText = new StringWriter();
    PrintWriter err = new PrintWriter(errText, true);
    ExecutorService shellThread = Executors.newSingleThreadExecutor();
    try (SessionContext ctx = new SessionContext();
        Terminal terminal = dumbTerminal(in, screen)) {
      ctx.registerCsv("t", csv.toString());
      StringBuilder numbers = new StringBuilder("n\n");
      for (int i = 0; i < 100; i++) {
        numbers.append(i).append('\n');
      }
      Path big = dir.resolve("n.csv");
      Files.writeString(big, numbers);
      ctx.registerCsv("n", big.toString());
      PrintWriter out = terminal.writer();
      StatementPrinter printer =
          new StatementPrinter(
              ctx, OutputFormat.table, Integer.MAX_VALUE, false, ProgressLine.Mode.never, out, err);
      Future<Integer> shell =
          shellThread.submit(() -> new Shell(ctx, printer, terminal, history, out, err).run());

      type(keys, "SELECT id,\n  upper(name) AS loud\nFROM t WHERE id > 1;\n");
      awaitText(screen, "GAMMA");
      type(keys, "\\d\n\\d t\n\\timing\n");
      awaitText(screen, "Timing is on.");
      // 10^12 joined rows: runs far longer than the test; Ctrl-C must cancel it.
      type(keys, "SELECT count(*) FROM n a, n b, n c, n d, n e, n f;\n");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!printer.running() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      Thread.sleep(300);
      terminal.raise(Terminal.Signal.INT);
      awaitText(errText, "query cancelled");
      type(keys, "SELECT 40 + 2 AS answer;\n\\q\n");
      assertThat(shell.get(60, TimeUnit.SECONDS)).isZero();
      assertThat(errText.toString()).doesNotContain("error");
      // The terminal copies the shell's output to the screen on its own thread: the last rows may
      // arrive after the shell has returned.
      awaitText(screen, "|     42 |");

      String text = screen.toString(StandardCharsets.UTF_8);
      assertThat(text).contains("BETA").contains("GAMMA").doesNotContain("ALPHA");
      assertThat(text)
          .contains("| t    | table | 2       |")
          .contains("| n    | table | 1       |");
      assertThat(text).contains("| name   | VARCHAR | yes      |");
      assertThat(text).contains("|     42 |");
      assertThat(errText.toString()).contains("Time: ");
      String saved = Files.readString(history);
      // A multi-line statement is one history entry.
      assertThat(saved).contains("SELECT id,\\n  upper(name) AS loud\\nFROM t WHERE id > 1;");
      assertThat(saved).contains("\\\\timing");
    } finally {
      shellThread.shutdownNow();
    }
  }

  @Test
  void commandsWhileAStatementIsPendingExpandedDisplayAndStatementTags() throws Exception {
    PipedOutputStream keys = new PipedOutputStream();
    PipedInputStream in = new PipedInputStream(keys, 1 << 16);
    ByteArrayOutputStream screen = new ByteArrayOutputStream();
    StringWriter errText = new StringWriter();
    PrintWriter err = new PrintWriter(errText, true);
    ExecutorService shellThread = Executors.newSingleThreadExecutor();
    try (SessionContext ctx = new SessionContext();
        Terminal terminal = dumbTerminal(in, screen)) {
      PrintWriter out = terminal.writer();
      StatementPrinter printer =
          new StatementPrinter(
              ctx, OutputFormat.table, Integer.MAX_VALUE, false, ProgressLine.Mode.never, out, err);
      Future<Integer> shell =
          shellThread.submit(
              () -> new Shell(ctx, printer, terminal, dir.resolve("h"), out, err).run());
      type(keys, "CREATE TABLE wide (id INT, label VARCHAR);\n");
      type(keys, "INSERT INTO wide VALUES (1, 'one'), (2, 'two'), (3, 'three');\n");
      awaitText(screen, "INSERT 3");
      // \d on its own line while the SELECT is pending runs, and the SELECT is finished after.
      type(keys, "SELECT label\n\\d\n");
      awaitText(screen, "| wide | table | 2       |");
      type(keys, "FROM wide WHERE id = 2;\n");
      awaitText(screen, "| two   |");
      type(keys, "\\x\nSELECT id, label FROM wide WHERE id = 3;\n");
      awaitText(screen, "Expanded display is on.");
      awaitText(screen, "label | three");
      type(keys, "\\q\n");
      assertThat(shell.get(60, TimeUnit.SECONDS)).isZero();
      String text = screen.toString(StandardCharsets.UTF_8).replace("\r", "");
      assertThat(text)
          .contains(Shell.PROMPT + "CREATE TABLE\n")
          .contains(Shell.PROMPT + "INSERT 3\n");
      assertThat(text).contains("-[ RECORD 1 ]-\nid    | 3\nlabel | three\n1 row");
      assertThat(text).doesNotContain("| count |");
      assertThat(errText.toString()).doesNotContain("error");
    } finally {
      shellThread.shutdownNow();
    }
  }

  /** A terminal reading typed keys from {@code in} and showing on {@code screen}. */
  private static Terminal dumbTerminal(PipedInputStream in, ByteArrayOutputStream screen)
      throws IOException {
    return TerminalBuilder.builder()
        .system(false)
        .streams(in, screen)
        .type("dumb")
        .encoding(StandardCharsets.UTF_8)
        .build();
  }

  private static void type(PipedOutputStream keys, String text) throws IOException {
    keys.write(text.getBytes(StandardCharsets.UTF_8));
    keys.flush();
  }

  private static void awaitText(Object sink, String text) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      String now =
          sink instanceof ByteArrayOutputStream b
              ? b.toString(StandardCharsets.UTF_8)
              : sink.toString();
      if (now.contains(text)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("timed out waiting for '" + text + "' in:\n" + sink);
  }
}
