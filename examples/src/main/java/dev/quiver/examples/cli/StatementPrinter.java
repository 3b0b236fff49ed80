package dev.quiver.examples.cli;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.Cancellable;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.decorators.DistributedDataFrame;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Locale;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Runs statements of one session and prints their results: rows in the chosen format (streamed, so
 * only the rows shown are held), nothing for statements without rows, and the time each took on
 * stderr when timing is on, and the progress of distributed queries on stderr. The running query
 * can be cancelled from another thread (Ctrl-C).
 */
final class StatementPrinter {
  private final SessionContext session;
  private final OutputFormat format;
  private final int maxRows;
  private final PrintWriter out;
  private final PrintWriter err;
  private final ProgressLine.Mode progress;
  private volatile boolean timing;
  private volatile boolean expanded;
  private volatile Cancellable running;
  private boolean jsonDocument;
  private int resultsWritten;

  StatementPrinter(
      SessionContext session,
      OutputFormat format,
      int maxRows,
      boolean timing,
      ProgressLine.Mode progress,
      PrintWriter out,
      PrintWriter err) {
    this.session = session;
    this.progress = progress;
    this.format = format;
    this.maxRows = maxRows;
    this.timing = timing;
    this.out = out;
    this.err = err;
  }

  boolean timing() {
    return timing;
  }

  void timing(boolean on) {
    timing = on;
  }

  boolean expanded() {
    return expanded;
  }

  /** Prints table rows a column per line ({@code \x}). */
  void expanded(boolean on) {
    expanded = on;
  }

  /**
   * Makes the {@code json} results of several statements one JSON document: an array holding each
   * result array, in statement order ({@code [} before the first, {@code ,} between them; {@link
   * #endJsonDocument} writes the closing {@code ]}). Other formats are unaffected.
   */
  void jsonDocument() {
    if (format == OutputFormat.json) {
      jsonDocument = true;
      out.println("[");
    }
  }

  /** Closes the document {@link #jsonDocument} began, if one was begun. */
  void endJsonDocument() {
    if (jsonDocument) {
      out.println(resultsWritten == 0 ? "]" : "\n]");
      out.flush();
      jsonDocument = false;
    }
  }

  /** Runs one statement and prints its result; throws what the statement threw. */
  void run(String sql) {
    long start = System.nanoTime();
    DataFrame df = session.sql(sql);
    if (format == OutputFormat.table && !session.isQuery(sql)) {
      out.println(StatementTags.tag(sql, df));
      out.flush();
    } else if (!df.schema().getFields().isEmpty()) {
      // The progress line (distributed queries running over a second) is erased before the
      // rows are printed: the table format reads the whole result first, the others stream.
      try (ArrowReader reader = df.executeStream();
          ProgressLine line =
              ProgressLine.start(() -> DistributedDataFrame.progressOf(df), err, progress)) {
        running = reader instanceof Cancellable c ? c : null;
        format.write(
            reader,
            maxRows,
            out,
            () -> {
              line.close();
              if (jsonDocument && resultsWritten++ > 0) {
                out.print(",");
              }
            },
            expanded);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        running = null;
      }
    }
    if (timing) {
      err.printf(Locale.ROOT, "Time: %.3f ms%n", (System.nanoTime() - start) / 1e6);
      err.flush();
    }
  }

  /** Whether a statement's result is being read now. */
  boolean running() {
    return running != null;
  }

  /** Cancels the running statement, if any; returns whether there was one. */
  boolean cancel() {
    Cancellable c = running;
    if (c == null) {
      return false;
    }
    c.cancel("cancelled by the user (Ctrl-C)");
    return true;
  }
}
