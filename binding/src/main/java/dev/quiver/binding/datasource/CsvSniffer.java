package dev.quiver.binding.datasource;

import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.physical.scan.CsvDialect;
import dev.quiver.binding.physical.scan.CsvScanExec;
import dev.quiver.binding.physical.scan.CsvTokenizer;
import java.io.IOException;

/**
 * Guesses what a CSV file read without options looks like, as DuckDB's sniffer does: the delimiter
 * ({@code ,} {@code ;} {@code |} or tab: the one that splits the first lines into the same number
 * of fields, the most fields winning) and whether the first line is a header (it is unless each of
 * its fields fits the type the lines below have, at least one of them a number, date or boolean).
 */
final class CsvSniffer {
  private CsvSniffer() {}

  private static final char[] DELIMITERS = {',', ';', '|', '\t'};

  /** Lines looked at. */
  private static final int SAMPLE = 20;

  /**
   * {@code options} with the delimiter (when {@code delimiter}) and header (when {@code header})
   * that {@code file} suggests; unchanged where the file suggests nothing.
   */
  static CsvOptions sniff(
      ObjectStore store, String file, CsvOptions options, boolean delimiter, boolean header) {
    byte[] head;
    try (java.io.InputStream in = CsvScanExec.open(store, file)) {
      head = wholeLines(in.readNBytes(HEAD_BYTES));
    } catch (IOException e) {
      return options; // the read itself reports it
    }
    return sniff(head, file, options, delimiter, header);
  }

  /** The first bytes read, up to the first {@link #SAMPLE} lines' worth. */
  private static final int HEAD_BYTES = 64 << 10;

  /** {@code bytes} up to its last line break, so that no sampled line is cut short. */
  private static byte[] wholeLines(byte[] bytes) {
    if (bytes.length < HEAD_BYTES) {
      return bytes; // the whole file
    }
    for (int i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] == '\n') {
        return java.util.Arrays.copyOf(bytes, i + 1);
      }
    }
    return bytes;
  }

  private static CsvOptions sniff(
      byte[] head, String file, CsvOptions options, boolean delimiter, boolean header) {
    CsvOptions o = options;
    if (delimiter) {
      int best = 1;
      for (char d : DELIMITERS) {
        int fields = consistentFields(head, file, o.withDelimiter(d).withHeader(false));
        if (fields > best) {
          best = fields;
          o = o.withDelimiter(d);
        }
      }
    }
    if (header) {
      Boolean first = firstLineIsHeader(head, file, o.withHeader(false));
      if (first != null) {
        o = o.withHeader(first);
      }
    }
    return o;
  }

  /** The fields per line when every sampled line has as many; 0 otherwise. */
  private static int consistentFields(byte[] head, String file, CsvOptions o) {
    int fields = -1;
    try (CsvTokenizer t =
        new CsvTokenizer(new java.io.ByteArrayInputStream(head), file, o.dialect())) {
      for (int i = 0; i < SAMPLE && CsvScanExec.nextNonBlank(t); i++) {
        if (fields >= 0 && t.fieldCount() != fields) {
          return 0;
        }
        fields = t.fieldCount();
      }
    } catch (RuntimeException e) {
      return 0; // a quote this delimiter leaves unbalanced: not this one
    }
    return Math.max(fields, 0);
  }

  /** Whether the first line is a header; null when the lines do not tell (all text). */
  private static Boolean firstLineIsHeader(byte[] head, String file, CsvOptions o) {
    CsvDialect dialect = o.dialect();
    CsvTable.Candidate[] first = null;
    CsvTable.Candidate[] rest = null;
    try (CsvTokenizer t = new CsvTokenizer(new java.io.ByteArrayInputStream(head), file, dialect)) {
      for (int i = 0; i < SAMPLE && CsvScanExec.nextNonBlank(t); i++) {
        int n = t.fieldCount();
        if (first == null) {
          first = candidates(n);
          rest = candidates(n);
          for (int c = 0; c < n; c++) {
            CsvTable.observe(first[c], t, c, null);
          }
        } else if (n == first.length) {
          for (int c = 0; c < n; c++) {
            CsvTable.observe(rest[c], t, c, null);
          }
        }
      }
    } catch (RuntimeException e) {
      return null; // the read itself reports it
    }
    if (first == null) {
      return null;
    }
    boolean typed = false;
    for (int c = 0; c < first.length; c++) {
      if (!rest[c].sawValue
          || rest[c].type() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Utf8) {
        continue;
      }
      typed = true;
      if (first[c].sawValue && !rest[c].type().equals(rest[c].and(first[c]).type())) {
        return true;
      }
    }
    return typed ? false : null;
  }

  private static CsvTable.Candidate[] candidates(int n) {
    CsvTable.Candidate[] out = new CsvTable.Candidate[n];
    for (int i = 0; i < n; i++) {
      out[i] = new CsvTable.Candidate();
    }
    return out;
  }
}
