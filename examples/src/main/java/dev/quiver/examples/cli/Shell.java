package dev.quiver.examples.cli;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.sql.SqlScript;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.types.pojo.Field;
import org.jline.reader.EOFError;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.ParsedLine;
import org.jline.reader.Parser;
import org.jline.reader.UserInterruptException;
import org.jline.reader.impl.DefaultParser;
import org.jline.terminal.Terminal;
import org.jline.terminal.Terminal.Signal;

/**
 * The interactive SQL shell: JLine line editing and a history file; statements span lines until a
 * {@code ;}; backslash commands ({@code \d}, {@code \d TABLE}, {@code \timing}, {@code \x}, {@code
 * \q}), also on a line of their own while a statement is pending, which then stays; Ctrl-C cancels
 * the running statement (or clears the line being typed) and never ends the shell.
 */
final class Shell {
  static final String PROMPT = "quiver> ";
  static final String CONTINUATION = "     -> ";

  private static final String HELP =
      String.join(
          "\n",
          "Statements end with ';' and may span lines. Ctrl-C cancels a running statement.",
          "  \\d          list tables and views",
          "  \\d NAME     columns of table or view NAME",
          "  \\timing     print each statement's time (on/off)",
          "  \\x          expanded display: each row a column per line (on/off)",
          "  \\q          quit (also Ctrl-D)",
          "  \\?          this help");

  private final SessionContext session;
  private final StatementPrinter printer;
  private final Terminal terminal;
  private final Path history;
  private final PrintWriter out;
  private final PrintWriter err;

  Shell(
      SessionContext session,
      StatementPrinter printer,
      Terminal terminal,
      Path history,
      PrintWriter out,
      PrintWriter err) {
    this.session = session;
    this.printer = printer;
    this.terminal = terminal;
    this.history = history;
    this.out = out;
    this.err = err;
  }

  /** Reads and runs statements until {@code \q} or end of input; returns the exit status. */
  int run() {
    LineReader reader =
        LineReaderBuilder.builder()
            .appName("quiver")
            .terminal(terminal)
            .parser(new StatementParser())
            .variable(LineReader.HISTORY_FILE, history)
            .variable(LineReader.SECONDARY_PROMPT_PATTERN, CONTINUATION)
            .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
            .build();
    // While a statement runs, Ctrl-C cancels it (the line reader handles Ctrl-C while reading).
    terminal.handle(Signal.INT, signal -> printer.cancel());
    out.println("Quiver shell. End statements with ';'. \\? for help, \\q to quit.");
    out.flush();
    try {
      String pending = null;
      while (true) {
        String text;
        try {
          text = reader.readLine(PROMPT, null, (Character) null, pending);
        } catch (UserInterruptException e) {
          continue; // Ctrl-C while typing drops the line
        } catch (EndOfFileException e) {
          return 0;
        } finally {
          pending = null;
        }
        String trimmed = text.strip();
        if (trimmed.isEmpty()) {
          continue;
        }
        int lastLine = text.lastIndexOf('\n');
        String last = text.substring(lastLine + 1).strip();
        if (lastLine >= 0 && last.startsWith("\\") && !text.substring(0, lastLine).isBlank()) {
          // A command typed while a statement is pending (psql's way): it runs, and the statement
          // stays to be finished.
          if (!command(last)) {
            return 0;
          }
          pending = text.substring(0, lastLine) + "\n";
          continue;
        }
        if (trimmed.startsWith("\\")) {
          if (!command(trimmed)) {
            return 0;
          }
          continue;
        }
        for (String statement : SqlScript.split(text)) {
          execute(statement);
        }
      }
    } finally {
      try {
        reader.getHistory().save();
      } catch (IOException e) {
        err.println("warning: could not save the history to " + history + ": " + e.getMessage());
        err.flush();
      }
    }
  }

  private void execute(String statement) {
    try {
      printer.run(statement);
    } catch (QueryCancelledException e) {
      err.println();
      err.println("query cancelled");
    } catch (RuntimeException e) {
      err.println("error: " + QuiverCli.oneLine(e));
    } finally {
      out.flush();
      err.flush();
    }
  }

  /** Runs a backslash command; false when it ends the shell. */
  private boolean command(String text) {
    String[] words = text.split("\\s+", 2);
    String name = words[0].toLowerCase(Locale.ROOT);
    String arg = words.length > 1 ? words[1].strip().replaceAll(";$", "") : "";
    switch (name) {
      case "\\q", "\\quit" -> {
        return false;
      }
      case "\\timing" -> {
        boolean on = arg.isEmpty() ? !printer.timing() : arg.equalsIgnoreCase("on");
        printer.timing(on);
        out.println("Timing is " + (on ? "on." : "off."));
      }
      case "\\x" -> {
        boolean on = arg.isEmpty() ? !printer.expanded() : arg.equalsIgnoreCase("on");
        printer.expanded(on);
        out.println("Expanded display is " + (on ? "on." : "off."));
      }
      case "\\d" -> {
        try {
          out.print(arg.isEmpty() ? tables() : columns(arg));
        } catch (RuntimeException e) {
          err.println("error: " + QuiverCli.oneLine(e));
        }
      }
      case "\\?", "\\h", "\\help" -> out.println(HELP);
      default -> err.println("unknown command " + words[0] + "; \\? lists the commands");
    }
    out.flush();
    err.flush();
    return true;
  }

  private String tables() {
    List<List<String>> rows = new ArrayList<>();
    for (String name : session.tableNames()) {
      int columns = session.table(name).schema().getFields().size();
      rows.add(List.of(name, kind(name), Integer.toString(columns)));
    }
    return TextTable.render(List.of("name", "type", "columns"), rows);
  }

  private String kind(String name) {
    try {
      session.tableProvider(name);
      return "table";
    } catch (RuntimeException e) {
      return "view";
    }
  }

  private String columns(String table) {
    List<List<String>> rows = new ArrayList<>();
    for (Field f : session.table(table).schema().getFields()) {
      String type = TypeMapping.sqlName(f.getType());
      rows.add(
          List.of(
              f.getName(),
              type == null ? f.getType().toString() : type,
              f.isNullable() ? "yes" : "no"));
    }
    return TextTable.render(List.of("column", "type", "nullable"), rows);
  }

  /** Accepts a line only once it ends a statement (or is a backslash command). */
  private static final class StatementParser implements Parser {
    private final DefaultParser words = new DefaultParser();

    StatementParser() {
      words.setEofOnUnclosedQuote(false);
      words.setQuoteChars(new char[0]);
      words.setEscapeChars(new char[0]);
    }

    @Override
    public ParsedLine parse(String line, int cursor, ParseContext context) {
      if (context == ParseContext.ACCEPT_LINE) {
        String t = line.strip();
        String last = line.substring(line.lastIndexOf('\n') + 1).strip();
        if (!t.isEmpty()
            && !t.startsWith("\\")
            && !last.startsWith("\\")
            && !SqlScript.complete(line)) {
          throw new EOFError(-1, -1, "the statement continues until ';'");
        }
      }
      return words.parse(line, cursor, context);
    }
  }
}
