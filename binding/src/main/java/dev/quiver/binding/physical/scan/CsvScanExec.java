package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.SplitSource;
import dev.quiver.binding.physical.TaskContext;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads CSV files with a hand-written byte-level parser. Each partition reads its own list of whole
 * files (a file is a split); only projected columns are converted; an unquoted empty field (and the
 * dialect's null string) is NULL. Rows with the wrong number of fields or values that do not parse
 * as the column's type fail with the file, line and column, unless the dialect ignores errors: then
 * such a value is NULL and such a row is skipped.
 */
public final class CsvScanExec extends FileScanExec {
  private final CsvDialect dialect;
  private final Map<String, Long> listedFileBytes;

  /** Every partition's files in order: file {@code i} is split {@code i}. */
  private final List<String> splitFiles;

  private final int[] splitOffsets;

  /**
   * Creates the scan.
   *
   * @param tableSchema the columns of every file, in file order
   * @param partitionFiles the files each partition reads (at least one partition)
   * @param dialect the files' layout: delimiter, quoting, header, null string, error policy
   * @param projection indices into {@code tableSchema} of the columns returned; null = all
   * @param limit rows each partition needs at most
   * @param batchSize rows per batch
   */
  public CsvScanExec(
      Schema tableSchema,
      List<List<String>> partitionFiles,
      CsvDialect dialect,
      int[] projection,
      OptionalLong limit,
      int batchSize) {
    this(tableSchema, partitionFiles, dialect, projection, limit, batchSize, Map.of());
  }

  /**
   * As above, knowing the listed size of each file ({@link #listedFileBytes()}; absent: unknown).
   */
  public CsvScanExec(
      Schema tableSchema,
      List<List<String>> partitionFiles,
      CsvDialect dialect,
      int[] projection,
      OptionalLong limit,
      int batchSize,
      Map<String, Long> listedFileBytes) {
    super(tableSchema, partitionFiles, projection, limit, batchSize);
    for (Field f : schema().getFields()) {
      checkReadable(f);
    }
    this.dialect = dialect;
    this.listedFileBytes = Map.copyOf(listedFileBytes);
    this.splitFiles = partitionFiles().stream().flatMap(List::stream).toList();
    this.splitOffsets = offsets(partitionFiles().stream().mapToInt(List::size).toArray());
  }

  @Override
  public Map<String, Long> listedFileBytes() {
    return listedFileBytes;
  }

  @Override
  protected int[] splitOffsets() {
    return splitOffsets;
  }

  @Override
  public long splitBytes(int split) {
    return listedFileBytes.getOrDefault(splitFiles.get(split), -1L);
  }

  /** Throws when the CSV reader cannot produce {@code field}'s type. */
  public static void checkReadable(Field field) {
    boolean ok =
        switch (field.getType().getTypeID()) {
          case Int -> ((ArrowType.Int) field.getType()).getIsSigned();
          case FloatingPoint ->
              ((ArrowType.FloatingPoint) field.getType()).getPrecision()
                  != org.apache.arrow.vector.types.FloatingPointPrecision.HALF;
          case Decimal -> ((ArrowType.Decimal) field.getType()).getBitWidth() == 128;
          case Utf8, Bool, Date, Timestamp, Null -> true;
          default -> false;
        };
    if (!ok) {
      throw new DataSourceException(
          "CSV column '"
              + field.getName()
              + "' has type "
              + field.getType()
              + " which the CSV reader cannot produce; use BIGINT, INT, DOUBLE, DECIMAL, VARCHAR,"
              + " BOOLEAN, DATE or TIMESTAMP");
    }
  }

  /** The files' layout. */
  public CsvDialect dialect() {
    return dialect;
  }

  @Override
  public String displayDetails() {
    return super.displayDetails() + dialect.describe();
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new CsvStream(splitSource(partition, context), context);
  }

  /** Writes one CSV field into row {@code row} of a vector. */
  private interface ColumnParser {
    void parse(CsvTokenizer t, int field, int row);
  }

  /**
   * Opens {@code file} of {@code store} for reading, decompressing {@code .gz} and {@code .zst}
   * files.
   */
  public static java.io.InputStream open(ObjectStore store, String file) throws IOException {
    java.io.InputStream in = store.openStream(file);
    String name = file.toLowerCase(java.util.Locale.ROOT);
    try {
      if (name.endsWith(".gz") || name.endsWith(".gzip")) {
        return new java.util.zip.GZIPInputStream(in, 1 << 16);
      }
      if (name.endsWith(".zst") || name.endsWith(".zstd")) {
        return new java.io.BufferedInputStream(
            new com.github.luben.zstd.ZstdInputStream(in), 1 << 16);
      }
      return in;
    } catch (IOException | RuntimeException e) {
      in.close();
      throw new DataSourceException(
          "Cannot decompress CSV file " + file + ": " + e.getMessage(), e);
    }
  }

  /** {@code name} without a {@code .gz}/{@code .zst} suffix. */
  public static String withoutCompressionSuffix(String name) {
    for (String suffix : new String[] {".gz", ".gzip", ".zst", ".zstd"}) {
      if (name.endsWith(suffix)) {
        return name.substring(0, name.length() - suffix.length());
      }
    }
    return name;
  }

  /** Advances to the next record that is not a blank line; false at the end. */
  public static boolean nextNonBlank(CsvTokenizer t) {
    while (t.next()) {
      if (!t.blank()) {
        return true;
      }
    }
    return false;
  }

  /** SQL name of a type, for error messages. */
  static String sqlName(ArrowType type) {
    return switch (type.getTypeID()) {
      case Int ->
          switch (((ArrowType.Int) type).getBitWidth()) {
            case 8 -> "TINYINT";
            case 16 -> "SMALLINT";
            case 32 -> "INTEGER";
            default -> "BIGINT";
          };
      case FloatingPoint -> "DOUBLE";
      case Decimal ->
          "DECIMAL("
              + ((ArrowType.Decimal) type).getPrecision()
              + ", "
              + ((ArrowType.Decimal) type).getScale()
              + ")";
      case Utf8 -> "VARCHAR";
      case Bool -> "BOOLEAN";
      case Date -> "DATE";
      case Timestamp -> "TIMESTAMP";
      default -> type.toString();
    };
  }

  private final class CsvStream implements BatchStream {
    private final SplitSource splits;

    /** The files opened so far, for error messages. */
    private final List<String> files = new java.util.ArrayList<>();

    private final BufferAllocator allocator;
    private final dev.quiver.binding.settings.SessionConfig config;
    private final int[] fileColumns;
    private final byte[] nullBytes = dialect.nullBytes();
    private CsvTokenizer tokenizer;
    private long remaining = limit().orElse(Long.MAX_VALUE);
    private boolean done;

    CsvStream(SplitSource splits, TaskContext context) {
      this.splits = splits;
      this.allocator = context.allocator();
      this.config = context.config();
      int n = schema().getFields().size();
      int[] projection = projection();
      this.fileColumns = new int[n];
      for (int i = 0; i < n; i++) {
        fileColumns[i] = projection == null ? i : projection[i];
      }
    }

    @Override
    public Schema schema() {
      return CsvScanExec.this.schema();
    }

    private boolean nextRecord() {
      while (true) {
        if (tokenizer == null) {
          int split = splits.next();
          if (split < 0) {
            return false;
          }
          String file = splitFiles.get(split);
          files.add(file);
          try {
            tokenizer =
                new CsvTokenizer(open(ObjectStores.forLocation(file, config), file), file, dialect);
          } catch (IOException e) {
            throw new DataSourceException(
                "Cannot open CSV file "
                    + file
                    + ": "
                    + e.getMessage()
                    + "; check that it still exists",
                e);
          }
          if (dialect.hasHeader() && !nextNonBlank(tokenizer)) {
            closeTokenizer();
            continue;
          }
        }
        if (tokenizer.next()) {
          int expected = tableSchema().getFields().size();
          if (expected != 1 && tokenizer.blank()) {
            continue;
          }
          if (tokenizer.fieldCount() != expected) {
            if (dialect.ignoreErrors()) {
              continue;
            }
            throw new DataSourceException(
                "CSV file "
                    + tokenizer.source()
                    + " line "
                    + tokenizer.line()
                    + ": expected "
                    + expected
                    + " fields but found "
                    + tokenizer.fieldCount()
                    + "; check the delimiter and quoting of that line");
          }
          return true;
        }
        closeTokenizer();
      }
    }

    @Override
    public VectorSchemaRoot next() {
      if (done || remaining <= 0) {
        return null;
      }
      int capacity = (int) Math.min(batchSize(), remaining);
      VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
      try {
        ColumnParser[] parsers = new ColumnParser[fileColumns.length];
        for (int c = 0; c < parsers.length; c++) {
          FieldVector v = root.getVector(c);
          v.setInitialCapacity(capacity);
          v.allocateNew();
          parsers[c] = parser(v);
        }
        int rows = 0;
        while (rows < capacity && nextRecord()) {
          for (int c = 0; c < parsers.length; c++) {
            int field = fileColumns[c];
            if (isNull(field, parsers[c] instanceof Utf8Parser)) {
              root.getVector(c).setNull(rows);
            } else if (!dialect.ignoreErrors()) {
              parsers[c].parse(tokenizer, field, rows);
            } else {
              try {
                parsers[c].parse(tokenizer, field, rows);
              } catch (BadValue e) {
                root.getVector(c).setNull(rows);
              }
            }
          }
          rows++;
        }
        if (rows == 0) {
          done = true;
          root.close();
          return null;
        }
        root.setRowCount(rows);
        remaining -= rows;
        return root;
      } catch (OutOfMemoryException e) {
        root.close();
        throw ScanBatches.exhausted("reading CSV files " + files, e);
      } catch (RuntimeException e) {
        root.close();
        throw e;
      }
    }

    /**
     * Whether a field is NULL: empty and unquoted (a quoted one is '' for text), or the null
     * string.
     */
    private boolean isNull(int field, boolean text) {
      if (tokenizer.length(field) == 0) {
        return !(tokenizer.quoted(field) && text);
      }
      return dialect.isNull(tokenizer, field, nullBytes);
    }

    private DataSourceException bad(CsvTokenizer t, int field, ArrowType type) {
      String text = t.text(field);
      if (text.length() > 60) {
        text = text.substring(0, 60) + "...";
      }
      return new BadValue(
          "CSV file "
              + t.source()
              + " line "
              + t.line()
              + " column '"
              + tableSchema().getFields().get(field).getName()
              + "' (field "
              + (field + 1)
              + "): cannot read '"
              + text
              + "' as "
              + sqlName(type)
              + "; fix the value, give the column another type, or set ignore_errors to read"
              + " such values as NULL");
    }

    private ColumnParser parser(FieldVector vector) {
      ArrowType type = vector.getField().getType();
      return switch (vector.getMinorType()) {
        case BIGINT -> (t, f, row) -> ((BigIntVector) vector).setSafe(row, parseLong(t, f, type));
        case INT ->
            (t, f, row) ->
                ((IntVector) vector)
                    .setSafe(
                        row, (int) parseRanged(t, f, type, Integer.MIN_VALUE, Integer.MAX_VALUE));
        case SMALLINT ->
            (t, f, row) ->
                ((SmallIntVector) vector)
                    .setSafe(
                        row, (short) parseRanged(t, f, type, Short.MIN_VALUE, Short.MAX_VALUE));
        case TINYINT ->
            (t, f, row) ->
                ((TinyIntVector) vector)
                    .setSafe(row, (byte) parseRanged(t, f, type, Byte.MIN_VALUE, Byte.MAX_VALUE));
        case FLOAT8 -> (t, f, row) -> ((Float8Vector) vector).setSafe(row, parseDouble(t, f, type));
        case FLOAT4 ->
            (t, f, row) -> ((Float4Vector) vector).setSafe(row, (float) parseDouble(t, f, type));
        case BIT ->
            (t, f, row) -> {
              int v = CsvValues.parseBoolean(t.bytes(), t.start(f), t.length(f), false);
              if (v < 0) {
                throw bad(t, f, type);
              }
              ((BitVector) vector).setSafe(row, v);
            };
        case DATEDAY ->
            (t, f, row) -> ((DateDayVector) vector).setSafe(row, (int) parseDate(t, f, type));
        case DATEMILLI ->
            (t, f, row) ->
                ((DateMilliVector) vector).setSafe(row, parseDate(t, f, type) * 86_400_000L);
        case VARCHAR -> new Utf8Parser((VarCharVector) vector);
        case DECIMAL -> decimalParser((DecimalVector) vector);
        case NULL ->
            (t, f, row) -> {
              throw bad(t, f, type);
            };
        default -> {
          if (vector instanceof TimeStampVector ts) {
            yield timestampParser(ts, (ArrowType.Timestamp) type);
          }
          throw new DataSourceException("CSV reader cannot produce column type " + type);
        }
      };
    }

    private long parseLong(CsvTokenizer t, int f, ArrowType type) {
      try {
        return CsvValues.parseLong(t.bytes(), t.start(f), t.length(f));
      } catch (NumberFormatException e) {
        throw bad(t, f, type);
      }
    }

    private long parseRanged(CsvTokenizer t, int f, ArrowType type, long min, long max) {
      long v = parseLong(t, f, type);
      if (v < min || v > max) {
        throw bad(t, f, type);
      }
      return v;
    }

    private double parseDouble(CsvTokenizer t, int f, ArrowType type) {
      try {
        return CsvValues.parseDouble(t.bytes(), t.start(f), t.length(f));
      } catch (NumberFormatException e) {
        throw bad(t, f, type);
      }
    }

    private long parseDate(CsvTokenizer t, int f, ArrowType type) {
      long day = CsvValues.parseDate(t.bytes(), t.start(f), t.length(f));
      if (day == CsvValues.NOT_A_DATE) {
        throw bad(t, f, type);
      }
      return day;
    }

    private ColumnParser decimalParser(DecimalVector vector) {
      ArrowType.Decimal type = (ArrowType.Decimal) vector.getField().getType();
      return (t, f, row) -> {
        BigDecimal value;
        try {
          value = new BigDecimal(t.text(f).trim()).setScale(type.getScale(), RoundingMode.HALF_UP);
        } catch (NumberFormatException | ArithmeticException e) {
          throw bad(t, f, type);
        }
        if (value.precision() > type.getPrecision()) {
          throw bad(t, f, type);
        }
        vector.setSafe(row, value);
      };
    }

    private ColumnParser timestampParser(TimeStampVector vector, ArrowType.Timestamp type) {
      return (t, f, row) -> {
        long micros;
        try {
          micros = CsvValues.parseTimestampMicros(t.bytes(), t.start(f), t.length(f));
        } catch (NumberFormatException e) {
          throw bad(t, f, type);
        }
        long v =
            switch (type.getUnit()) {
              case SECOND -> Math.floorDiv(micros, 1_000_000L);
              case MILLISECOND -> Math.floorDiv(micros, 1000L);
              case MICROSECOND -> micros;
              case NANOSECOND -> micros * 1000L;
            };
        vector.setSafe(row, v);
      };
    }

    private void closeTokenizer() {
      if (tokenizer != null) {
        CsvTokenizer t = tokenizer;
        tokenizer = null;
        t.close();
      }
    }

    @Override
    public void close() {
      done = true;
      try {
        closeTokenizer();
      } finally {
        splits.close();
      }
    }
  }

  /** A value that does not parse as its column's type. */
  private static final class BadValue extends DataSourceException {
    BadValue(String message) {
      super(message);
    }
  }

  /** Copies the field's UTF-8 bytes as they are. */
  private static final class Utf8Parser implements ColumnParser {
    private final VarCharVector vector;

    Utf8Parser(VarCharVector vector) {
      this.vector = vector;
    }

    @Override
    public void parse(CsvTokenizer t, int field, int row) {
      vector.setSafe(row, t.bytes(), t.start(field), t.length(field));
    }
  }
}
