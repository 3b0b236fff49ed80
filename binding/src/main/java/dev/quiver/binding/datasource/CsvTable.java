package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.io.Listings;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.StoredObject;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.scan.CsvDialect;
import dev.quiver.binding.physical.scan.CsvScanExec;
import dev.quiver.binding.physical.scan.CsvTokenizer;
import dev.quiver.binding.physical.scan.CsvValues;
import dev.quiver.binding.physical.scan.FileSplits;
import dev.quiver.binding.settings.SessionConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A CSV file (header row) or directory of them. The schema is given or inferred from the first rows
 * (BIGINT, DOUBLE, DATE, BOOLEAN, else VARCHAR; a column with only empty fields is VARCHAR).
 * Reading uses Quiver's own byte-level parser rather than Arrow Dataset's CSV format so that errors
 * can name the file, line and column, and so that an empty field reads as NULL for every type.
 */
public final class CsvTable implements TableProvider {
  private final String path;
  private final Schema schema;
  private final CsvOptions options;
  private final List<StoredObject> files;
  private final long totalBytes;

  private CsvTable(
      String path, Schema schema, CsvOptions options, List<StoredObject> files, long totalBytes) {
    this.path = path;
    this.schema = schema;
    this.options = options;
    this.files = List.copyOf(files);
    this.totalBytes = totalBytes;
  }

  /** Opens a CSV file (infers its schema) or a directory of them. */
  public static CsvTable open(String path) {
    return open(path, null, CsvOptions.DEFAULT);
  }

  /** Opens CSV files laid out as {@code options} say, inferring the schema. */
  public static CsvTable open(String path, CsvOptions options) {
    return open(path, null, options);
  }

  /** Opens CSV files with the given schema (null = infer) and layout. */
  public static CsvTable open(String path, Schema schema, CsvOptions options) {
    return open(path, schema, options, null);
  }

  /**
   * Opens CSV files (a local path, {@code file://} or {@code s3://} URI) with the given schema
   * (null = infer) and layout, reaching the store with {@code config}'s settings (null: the
   * environment's).
   */
  public static CsvTable open(
      String path, Schema schema, CsvOptions options, SessionConfig config) {
    return open(path, schema, options, config, Listings.none());
  }

  /**
   * Opens CSV files as {@link #open(String, Schema, CsvOptions, SessionConfig)} does, taking the
   * listing from {@code listings} (a statement's, so that it lists each location once).
   */
  public static CsvTable open(
      String path, Schema schema, CsvOptions options, SessionConfig config, Listings listings) {
    String root = ObjectStores.normalize(path);
    ObjectStore store = ObjectStores.forLocation(root, config);
    List<StoredObject> listed = ParquetTable.listObjects(store, root, "CSV", listings);
    boolean single = listed.size() == 1 && listed.get(0).location().equals(root);
    List<StoredObject> files =
        ParquetTable.selectFiles(listed, root, single, "CSV", CsvTable::isCsvCandidate);
    long bytes = 0;
    List<String> header = null;
    String headerSource = null;
    for (StoredObject o : files) {
      String f = o.location();
      List<String> h = firstRecord(store, f, options.dialect());
      bytes += o.size();
      if (h == null) {
        continue;
      }
      if (header == null) {
        header = h;
        headerSource = f;
      } else if (options.hasHeader() ? !header.equals(h) : header.size() != h.size()) {
        throw new DataSourceException(
            "CSV file "
                + f
                + " has columns "
                + (options.hasHeader() ? h : h.size() + " fields")
                + " but "
                + headerSource
                + " has "
                + (options.hasHeader() ? header : header.size() + " fields")
                + "; every file of table "
                + path
                + " needs the same columns");
      }
    }
    Schema resolved;
    if (schema != null) {
      if (header != null && header.size() != schema.getFields().size()) {
        throw new DataSourceException(
            "CSV file "
                + headerSource
                + " has "
                + header.size()
                + " fields per line but the given schema has "
                + schema.getFields().size()
                + " columns; make them agree");
      }
      for (Field f : schema.getFields()) {
        CsvScanExec.checkReadable(f);
      }
      resolved = schema;
    } else {
      if (header == null) {
        throw new DataSourceException(
            "CSV path "
                + root
                + " holds only empty files, so no schema can be inferred; give an explicit schema");
      }
      resolved = infer(store, files, header, options);
      checkColumnTypes(resolved, options, root);
    }
    return new CsvTable(path, resolved, options, files, bytes);
  }

  /**
   * Opens CSV files read without some options, as DuckDB's {@code read_csv} does: the delimiter
   * (when {@code sniffDelimiter}) and header (when {@code sniffHeader}) are those the first file
   * with content suggests, else {@code options}'.
   */
  public static CsvTable openSniffing(
      String path,
      CsvOptions options,
      boolean sniffDelimiter,
      boolean sniffHeader,
      SessionConfig config,
      Listings listings) {
    CsvOptions o = options;
    if (sniffDelimiter || sniffHeader) {
      String root = ObjectStores.normalize(path);
      ObjectStore store = ObjectStores.forLocation(root, config);
      List<StoredObject> listed = ParquetTable.listObjects(store, root, "CSV", listings);
      boolean single = listed.size() == 1 && listed.get(0).location().equals(root);
      for (StoredObject f :
          ParquetTable.selectFiles(listed, root, single, "CSV", CsvTable::isCsvCandidate)) {
        if (f.size() > 0) {
          o = CsvSniffer.sniff(store, f.location(), options, sniffDelimiter, sniffHeader);
          break;
        }
      }
    }
    return open(path, null, o, config, listings);
  }

  private static boolean isCsvCandidate(String fileName) {
    String name = CsvScanExec.withoutCompressionSuffix(fileName.toLowerCase(java.util.Locale.ROOT));
    return name.endsWith(".csv") || name.endsWith(".tsv") || name.endsWith(".txt");
  }

  /** The first record of {@code file}, or null when the file is empty. */
  private static List<String> firstRecord(ObjectStore store, String file, CsvDialect dialect) {
    try (java.io.InputStream head = CsvScanExec.open(store, file)) {
      if (java.util.Arrays.equals(head.readNBytes(4), PARQUET_MAGIC)) {
        throw new DataSourceException(
            "CSV file "
                + file
                + " is a Parquet file (it starts with 'PAR1'); read it with read_parquet('"
                + file
                + "')");
      }
    } catch (IOException e) {
      throw new DataSourceException("Cannot read CSV file " + file + ": " + e.getMessage(), e);
    }
    try (CsvTokenizer t = new CsvTokenizer(CsvScanExec.open(store, file), file, dialect)) {
      if (!CsvScanExec.nextNonBlank(t)) {
        return null;
      }
      List<String> fields = new ArrayList<>();
      for (int i = 0; i < t.fieldCount(); i++) {
        fields.add(t.text(i));
      }
      return fields;
    } catch (IOException e) {
      throw new DataSourceException("Cannot read CSV file " + file + ": " + e.getMessage(), e);
    }
  }

  private static final byte[] PARQUET_MAGIC =
      "PAR1".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /** What inference has seen of one column. */
  static final class Candidate {
    boolean sawValue;
    boolean asLong = true;
    boolean asDouble = true;
    boolean asDate = true;
    boolean asBool = true;

    /** What the values seen by this and {@code other} together fit. */
    Candidate and(Candidate other) {
      Candidate c = new Candidate();
      c.sawValue = sawValue || other.sawValue;
      c.asLong = asLong && other.asLong;
      c.asDouble = asDouble && other.asDouble;
      c.asDate = asDate && other.asDate;
      c.asBool = asBool && other.asBool;
      return c;
    }

    ArrowType type() {
      if (!sawValue) {
        return ArrowType.Utf8.INSTANCE;
      }
      if (asLong) {
        return new ArrowType.Int(64, true);
      }
      if (asDouble) {
        return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      }
      if (asDate) {
        return new ArrowType.Date(DateUnit.DAY);
      }
      if (asBool) {
        return ArrowType.Bool.INSTANCE;
      }
      return ArrowType.Utf8.INSTANCE;
    }
  }

  private static Schema infer(
      ObjectStore store, List<StoredObject> files, List<String> header, CsvOptions options) {
    int n = header.size();
    Candidate[] candidates = new Candidate[n];
    for (int i = 0; i < n; i++) {
      candidates[i] = new Candidate();
    }
    CsvDialect dialect = options.dialect();
    byte[] nullBytes =
        options.nullString().isEmpty()
            ? null
            : options.nullString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int seen = 0;
    for (StoredObject o : files) {
      String file = o.location();
      if (seen >= options.inferenceRows()) {
        break;
      }
      try (CsvTokenizer t = new CsvTokenizer(CsvScanExec.open(store, file), file, dialect)) {
        if (options.hasHeader() && !CsvScanExec.nextNonBlank(t)) {
          continue;
        }
        while (seen < options.inferenceRows() && t.next()) {
          if (n != 1 && t.blank()) {
            continue;
          }
          if (t.fieldCount() != n) {
            if (options.ignoreErrors()) {
              continue;
            }
            throw new DataSourceException(
                "CSV file "
                    + file
                    + " line "
                    + t.line()
                    + ": expected "
                    + n
                    + " fields but found "
                    + t.fieldCount()
                    + "; check the delimiter and quoting of that line");
          }
          for (int c = 0; c < n; c++) {
            observe(candidates[c], t, c, nullBytes);
          }
          seen++;
        }
      } catch (IOException e) {
        throw new DataSourceException("Cannot read CSV file " + file + ": " + e.getMessage(), e);
      }
    }
    List<Field> fields = new ArrayList<>(n);
    for (int c = 0; c < n; c++) {
      String name = options.hasHeader() ? header.get(c).trim() : "";
      if (name.isEmpty()) {
        name = "column_" + (c + 1);
      }
      ArrowType given = options.columnType(name);
      fields.add(
          new Field(name, FieldType.nullable(given != null ? given : candidates[c].type()), null));
    }
    return new Schema(fields);
  }

  /** Every column type given by name names a column of the inferred schema. */
  private static void checkColumnTypes(Schema schema, CsvOptions options, String root) {
    List<String> names = schema.getFields().stream().map(Field::getName).toList();
    for (String given : options.columnTypes().keySet()) {
      if (names.stream().noneMatch(n -> n.equalsIgnoreCase(given))) {
        throw new DataSourceException(
            "CSV files at "
                + root
                + " have no column '"
                + given
                + "' to give a type to; their columns are "
                + names);
      }
    }
    for (Field f : schema.getFields()) {
      CsvScanExec.checkReadable(f);
    }
  }

  static void observe(Candidate c, CsvTokenizer t, int field, byte[] nullBytes) {
    int len = t.length(field);
    if (nullBytes != null
        && len == nullBytes.length
        && java.util.Arrays.equals(
            t.bytes(), t.start(field), t.start(field) + len, nullBytes, 0, len)) {
      return;
    }
    if (len == 0) {
      if (t.quoted(field)) {
        // "" is an empty string: only text can hold it.
        c.sawValue = true;
        c.asLong = c.asDouble = c.asDate = c.asBool = false;
      }
      return;
    }
    c.sawValue = true;
    byte[] b = t.bytes();
    int s = t.start(field);
    if (c.asLong && !CsvValues.isLong(b, s, len)) {
      c.asLong = false;
    }
    if (c.asDouble && !CsvValues.isDouble(b, s, len)) {
      c.asDouble = false;
    }
    if (c.asDate && CsvValues.parseDate(b, s, len) == CsvValues.NOT_A_DATE) {
      c.asDate = false;
    }
    if (c.asBool && CsvValues.parseBoolean(b, s, len, true) < 0) {
      c.asBool = false;
    }
  }

  /** The path the table was opened from. */
  public String path() {
    return path;
  }

  /** The table's files (local paths or object URIs), sorted. */
  public List<String> files() {
    return files.stream().map(StoredObject::location).toList();
  }

  /** The layout options. */
  public CsvOptions options() {
    return options;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public TableStatistics statistics() {
    return new TableStatistics(OptionalLong.empty(), OptionalLong.of(totalBytes));
  }

  @Override
  public ExecutionPlan scan(ScanRequest request) {
    List<FileSplits.SizedFile> sized = new ArrayList<>();
    Map<String, Long> listedBytes = new HashMap<>();
    for (StoredObject f : files) {
      sized.add(new FileSplits.SizedFile(f.location(), f.size()));
      listedBytes.put(f.location(), f.size());
    }
    return new CsvScanExec(
        schema,
        FileSplits.balance(sized, Math.max(1, request.targetPartitions())),
        options.dialect(),
        request.projection(),
        request.limit(),
        request.config().batchSize(),
        listedBytes);
  }

  @Override
  public String toString() {
    return "CsvTable(" + path + ", " + files.size() + " files)";
  }
}
