package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Splits RFC 4180 CSV bytes into records and fields without creating objects per field: fields are
 * unescaped into one reused byte array and addressed by offsets. Quoted fields may hold the
 * delimiter, doubled quotes and line breaks; CRLF and LF both end a record. A blank line is a
 * record of one empty field ({@link #blank()}); callers skip it unless the table has one column.
 */
public final class CsvTokenizer implements Closeable {
  private final InputStream in;
  private final String source;
  private final byte delimiter;
  private final int quote;
  private final int escape;
  private final byte[] buf = new byte[1 << 16];
  private int pos;
  private int limit;
  private boolean eof;

  private byte[] bytes = new byte[1024];
  private int used;
  private int[] starts = new int[16];
  private int[] ends = new int[16];
  private boolean[] quoted = new boolean[16];
  private int count;
  private long line = 1;
  private long recordLine;

  /**
   * Reads RFC 4180 CSV with {@code delimiter} from {@code in} (closed by {@link #close}); {@code
   * source} names it in errors.
   */
  public CsvTokenizer(InputStream in, String source, char delimiter) {
    this(
        in,
        source,
        new CsvDialect(
            delimiter, CsvDialect.DEFAULT.quote(), CsvDialect.DEFAULT.escape(), true, "", false));
  }

  /** Reads CSV laid out as {@code dialect} says (its delimiter, quote and escape). */
  public CsvTokenizer(InputStream in, String source, CsvDialect dialect) {
    this.in = in;
    this.source = source;
    this.delimiter = (byte) dialect.delimiter();
    this.quote = dialect.quote() == CsvDialect.NO_QUOTE ? -2 : dialect.quote();
    this.escape = dialect.escape() == CsvDialect.NO_QUOTE ? -2 : dialect.escape();
  }

  private int peek() throws IOException {
    if (pos == limit) {
      if (eof) {
        return -1;
      }
      limit = in.read(buf, 0, buf.length);
      pos = 0;
      if (limit <= 0) {
        limit = 0;
        eof = true;
        return -1;
      }
    }
    return buf[pos] & 0xFF;
  }

  private void append(int b) {
    if (used == bytes.length) {
      bytes = Arrays.copyOf(bytes, bytes.length * 2);
    }
    bytes[used++] = (byte) b;
  }

  /** Reads the next record; false at the end of input. */
  public boolean next() {
    try {
      return readRecord();
    } catch (IOException e) {
      throw new DataSourceException("Cannot read CSV file " + source + ": " + e.getMessage(), e);
    }
  }

  private boolean readRecord() throws IOException {
    if (line == 1 && pos == 0 && peek() == 0xEF) {
      skipBom();
    }
    if (peek() == -1) {
      return false;
    }
    recordLine = line;
    count = 0;
    used = 0;
    while (true) {
      int start = used;
      boolean isQuoted = false;
      int b = peek();
      if (b == quote) {
        isQuoted = true;
        pos++;
        while (true) {
          int c = peek();
          if (c == -1) {
            throw new DataSourceException(
                "CSV file "
                    + source
                    + " line "
                    + recordLine
                    + ": a quoted field is never closed; "
                    + "add the closing quote or escape the quotes inside the field");
          }
          pos++;
          if (c == escape && escape != quote) {
            // A backslash-style escape: the next character is literal, whatever it is.
            int next = peek();
            if (next == -1) {
              continue;
            }
            pos++;
            if (next == '\n') {
              line++;
            }
            append(next);
            continue;
          }
          if (c == quote) {
            if (escape == quote && peek() == quote) {
              pos++;
              append(quote);
              continue;
            }
            break;
          }
          if (c == '\n') {
            line++;
          }
          append(c);
        }
        int after = peek();
        if (after != -1 && after != delimiter && after != '\n' && after != '\r') {
          throw new DataSourceException(
              "CSV file "
                  + source
                  + " line "
                  + line
                  + " field "
                  + (count + 1)
                  + ": unexpected character '"
                  + (char) after
                  + "' after a closing quote; "
                  + "quote the whole field and escape the quotes inside it");
        }
      } else {
        while (true) {
          int c = peek();
          if (c == -1 || c == delimiter || c == '\n' || c == '\r') {
            break;
          }
          pos++;
          append(c);
        }
      }
      addField(start, used, isQuoted);
      int end = peek();
      if (end == delimiter) {
        pos++;
        continue;
      }
      if (end == '\r') {
        pos++;
        if (peek() == '\n') {
          pos++;
        }
        line++;
      } else if (end == '\n') {
        pos++;
        line++;
      }
      return true;
    }
  }

  private void skipBom() throws IOException {
    // UTF-8 byte order mark written by some spreadsheet exports.
    if (limit - pos >= 3 && (buf[pos + 1] & 0xFF) == 0xBB && (buf[pos + 2] & 0xFF) == 0xBF) {
      pos += 3;
    }
  }

  private void addField(int start, int end, boolean isQuoted) {
    if (count == starts.length) {
      starts = Arrays.copyOf(starts, count * 2);
      ends = Arrays.copyOf(ends, count * 2);
      quoted = Arrays.copyOf(quoted, count * 2);
    }
    starts[count] = start;
    ends[count] = end;
    quoted[count] = isQuoted;
    count++;
  }

  /** Whether the current record is a blank line. */
  public boolean blank() {
    return count == 1 && ends[0] == starts[0] && !quoted[0];
  }

  /** Number of fields of the current record. */
  public int fieldCount() {
    return count;
  }

  /** The buffer holding the current record's unescaped fields. */
  public byte[] bytes() {
    return bytes;
  }

  /** Offset of field {@code i} in {@link #bytes()}. */
  public int start(int i) {
    return starts[i];
  }

  /** Length in bytes of field {@code i}. */
  public int length(int i) {
    return ends[i] - starts[i];
  }

  /** Whether field {@code i} was quoted (a quoted empty field is an empty string, not NULL). */
  public boolean quoted(int i) {
    return quoted[i];
  }

  /** Field {@code i} as text. */
  public String text(int i) {
    return new String(bytes, starts[i], ends[i] - starts[i], StandardCharsets.UTF_8);
  }

  /** Line (1-based) on which the current record starts. */
  public long line() {
    return recordLine;
  }

  /** What the errors call the input, e.g. the file path. */
  public String source() {
    return source;
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      throw new DataSourceException("Cannot close CSV file " + source + ": " + e.getMessage(), e);
    }
  }
}
