package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.io.ObjectReader;
import dev.quiver.binding.io.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.parquet.VersionParser;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.impl.ColumnReaderImpl;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.ConvertedType;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Type;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Types;

/**
 * Decodes a range of one Parquet file's row groups into Arrow batches: the scan's reader for every
 * file it supports, and what lets a file be split over partitions (Arrow Dataset's Java API reads
 * whole files only). Columns in the common encodings (PLAIN and dictionary values, RLE levels) go
 * through {@link ParquetPageDecoder}, a page at a time; others through parquet-java's column reader
 * with one tight loop per column type. Only flat files whose columns have the types {@link
 * #unsupportedReason} accepts are read this way; the table reads any other file whole through Arrow
 * Dataset.
 */
final class ParquetRowGroupReader implements AutoCloseable {
  /** How one file column becomes one Arrow vector. */
  private enum Kind {
    BOOLEAN,
    INT8,
    INT16,
    INT32,
    INT64,
    UINT32_AS_INT64,
    FLOAT,
    DOUBLE,
    DATE_DAY,
    BYTES,
    DECIMAL_INT32,
    DECIMAL_INT64,
    DECIMAL_BYTES
  }

  /** One distinct output column: its file column, how it converts, and its place in the output. */
  private record Column(Field field, SchemaElement element, int leaf, Kind kind) {}

  private ParquetSplit split;
  private final Schema out;
  private final BufferAllocator allocator;
  private final int batchSize;
  private final ObjectReader file;
  private final FileMetaData metadata;
  private final List<Column> columns = new ArrayList<>();

  /** For each output field, the index in {@link #columns} of the column it reads. */
  private final int[] source;

  private final VersionParser.ParsedVersion writer;
  private int nextGroup;
  private long rowsLeftInGroup;
  private ColumnReaderImpl[] readers;
  private ParquetPageDecoder[] decoders;

  /** Column chunk arrays reused from row group to row group (see ObjectReader#readRanges). */
  private byte[][] chunkBuffers;

  /** Each column's decoder arrays, handed from one row group's decoder to the next. */
  private ParquetPageDecoder.Scratch[] decoderScratch;

  ParquetRowGroupReader(
      ObjectStore store, ParquetSplit split, Schema out, BufferAllocator allocator, int batchSize) {
    this.split = split;
    this.out = out;
    this.allocator = allocator;
    this.batchSize = Math.max(1, batchSize);
    String file = split.path();
    this.file = store.open(file, split.fileSize(), split.version());
    try {
      this.metadata = ParquetFooterBytes.cachedMetadata(this.file);
      int groups = metadata.getRow_groupsSize();
      if (split.firstRowGroup() + Math.max(split.rowGroupCount(), 0) > groups) {
        throw new DataSourceException(
            "Parquet file " + file + " has " + groups + " row groups; cannot read " + split);
      }
      String why = unsupportedReason(metadata, out);
      if (why != null) {
        throw new DataSourceException(
            "Cannot read row groups of Parquet file " + file + " by themselves: " + why);
      }
      Map<String, Integer> byName = new HashMap<>();
      this.source = new int[out.getFields().size()];
      for (int i = 0; i < out.getFields().size(); i++) {
        Field f = out.getFields().get(i);
        Integer seen = byName.get(f.getName());
        if (seen == null) {
          int leaf = leafIndex(metadata, f.getName());
          SchemaElement e = metadata.getSchema().get(leaf + 1);
          seen = columns.size();
          columns.add(new Column(f, e, leaf, kind(e, f.getType())));
          byName.put(f.getName(), seen);
        }
        source[i] = seen;
      }
      this.writer = writerVersion(metadata.getCreated_by());
      this.nextGroup = split.firstRowGroup();
    } catch (RuntimeException e) {
      closeQuietly();
      throw e;
    }
  }

  /**
   * Why the row groups of the file with footer {@code m} cannot be read by themselves into {@code
   * tableSchema}, or null when they can.
   */
  static String unsupportedReason(FileMetaData m, Schema tableSchema) {
    List<SchemaElement> schema = m.getSchema();
    if (schema.isEmpty() || schema.get(0).getNum_children() != schema.size() - 1) {
      return "it has nested columns";
    }
    for (SchemaElement e : schema.subList(1, schema.size())) {
      if (e.isSetNum_children() && e.getNum_children() > 0 || !e.isSetType()) {
        return "column " + e.getName() + " is nested";
      }
      if (e.getRepetition_type() == FieldRepetitionType.REPEATED) {
        return "column " + e.getName() + " is repeated";
      }
    }
    for (RowGroup g : m.getRow_groups()) {
      if (g.getColumnsSize() != schema.size() - 1) {
        return "a row group has " + g.getColumnsSize() + " column chunks";
      }
      for (ColumnChunk c : g.getColumns()) {
        if (!c.isSetMeta_data()) {
          return "a column chunk has no metadata";
        }
        if (!ParquetColumnPages.CODECS.contains(c.getMeta_data().getCodec())) {
          return "it is compressed with " + c.getMeta_data().getCodec();
        }
      }
    }
    for (Field f : tableSchema.getFields()) {
      int leaf = leafIndex(m, f.getName());
      if (leaf < 0) {
        return "it has no column " + f.getName();
      }
      if (kind(schema.get(leaf + 1), f.getType()) == null) {
        return "column " + f.getName() + " of type " + f.getType() + " is not supported";
      }
    }
    return null;
  }

  private static int leafIndex(FileMetaData m, String name) {
    List<SchemaElement> schema = m.getSchema();
    for (int i = 1; i < schema.size(); i++) {
      if (schema.get(i).getName().equals(name)) {
        return i - 1;
      }
    }
    return -1;
  }

  /** How file column {@code e} converts to {@code target}, or null when it is not supported. */
  private static Kind kind(SchemaElement e, ArrowType target) {
    Type physical = e.getType();
    boolean unsigned = isUnsigned(e);
    return switch (target.getTypeID()) {
      case Bool -> physical == Type.BOOLEAN ? Kind.BOOLEAN : null;
      case Int -> {
        ArrowType.Int i = (ArrowType.Int) target;
        if (!i.getIsSigned()) {
          yield null;
        }
        if (physical == Type.INT32 && !unsigned) {
          yield switch (i.getBitWidth()) {
            case 8 -> Kind.INT8;
            case 16 -> Kind.INT16;
            case 32 -> Kind.INT32;
            default -> null;
          };
        }
        if (physical == Type.INT32 && unsigned) {
          // Arrow widens UINT8/16 to 32 and UINT32 to 64 bits; both are exact.
          yield i.getBitWidth() == 32
              ? Kind.INT32
              : i.getBitWidth() == 64 ? Kind.UINT32_AS_INT64 : null;
        }
        yield physical == Type.INT64 && !unsigned && i.getBitWidth() == 64 ? Kind.INT64 : null;
      }
      case FloatingPoint -> {
        FloatingPointPrecision p = ((ArrowType.FloatingPoint) target).getPrecision();
        if (p == FloatingPointPrecision.SINGLE && physical == Type.FLOAT) {
          yield Kind.FLOAT;
        }
        yield p == FloatingPointPrecision.DOUBLE && physical == Type.DOUBLE ? Kind.DOUBLE : null;
      }
      case Date ->
          ((ArrowType.Date) target).getUnit() == DateUnit.DAY && physical == Type.INT32
              ? Kind.DATE_DAY
              : null;
      case Utf8, Binary -> physical == Type.BYTE_ARRAY ? Kind.BYTES : null;
      case Decimal -> {
        ArrowType.Decimal d = (ArrowType.Decimal) target;
        if (d.getBitWidth() != 128 || !e.isSetScale() || e.getScale() != d.getScale()) {
          yield null;
        }
        yield switch (physical) {
          case INT32 -> Kind.DECIMAL_INT32;
          case INT64 -> Kind.DECIMAL_INT64;
          case FIXED_LEN_BYTE_ARRAY -> e.getType_length() <= 16 ? Kind.DECIMAL_BYTES : null;
          case BYTE_ARRAY -> Kind.DECIMAL_BYTES;
          default -> null;
        };
      }
      default -> null;
    };
  }

  private static boolean isUnsigned(SchemaElement e) {
    if (e.isSetLogicalType() && e.getLogicalType().isSetINTEGER()) {
      return !e.getLogicalType().getINTEGER().isIsSigned();
    }
    if (e.isSetConverted_type()) {
      ConvertedType c = e.getConverted_type();
      return c == ConvertedType.UINT_8
          || c == ConvertedType.UINT_16
          || c == ConvertedType.UINT_32
          || c == ConvertedType.UINT_64;
    }
    return false;
  }

  private static VersionParser.ParsedVersion writerVersion(String createdBy) {
    if (createdBy == null) {
      return null;
    }
    try {
      return VersionParser.parse(createdBy);
    } catch (VersionParser.VersionParseException | RuntimeException e) {
      return null; // Only used to work around old writers' bugs; unknown writers need none.
    }
  }

  /**
   * Goes on with {@code next}, a range of row groups of the same file and version, once this
   * reader's range is read: the open file, its footer and the buffers of the previous row group
   * serve the next range (splits handed out one row group at a time would otherwise open the file
   * and allocate them again for every row group). False, changing nothing, otherwise.
   */
  boolean continueWith(ParquetSplit next) {
    if (next.isWholeFile()
        || split.isWholeFile()
        || rowsLeftInGroup != 0
        || nextGroup < endGroup()
        || !next.path().equals(split.path())
        || !java.util.Objects.equals(next.version(), split.version())
        || next.firstRowGroup() + next.rowGroupCount() > metadata.getRow_groupsSize()) {
      return false;
    }
    split = next;
    nextGroup = next.firstRowGroup();
    return true;
  }

  private int endGroup() {
    return split.isWholeFile()
        ? metadata.getRow_groupsSize()
        : split.firstRowGroup() + split.rowGroupCount();
  }

  /** The next batch of at most {@code batchSize} rows, or null after the last row group. */
  VectorSchemaRoot next() {
    try {
      while (rowsLeftInGroup == 0) {
        if (nextGroup >= endGroup()) {
          return null;
        }
        openGroup(nextGroup++);
      }
      int rows = (int) Math.min(batchSize, rowsLeftInGroup);
      List<FieldVector> vectors = new ArrayList<>(out.getFields().size());
      FieldVector[] filled = new FieldVector[columns.size()];
      try {
        for (int c = 0; c < columns.size(); c++) {
          filled[c] =
              decoders[c] != null
                  ? decode(columns.get(c), decoders[c], rows)
                  : fill(columns.get(c), readers[c], rows);
        }
        for (int i = 0; i < source.length; i++) {
          FieldVector v = filled[source[i]];
          if (vectors.contains(v)) {
            // The same column projected twice: share the first copy's buffers.
            TransferPair pair = v.getTransferPair(allocator);
            pair.splitAndTransfer(0, rows);
            v = (FieldVector) pair.getTo();
          }
          vectors.add(v);
        }
      } catch (RuntimeException e) {
        // Closing is idempotent, so vectors both filled and already in the output are fine.
        for (FieldVector v : filled) {
          if (v != null) {
            v.close();
          }
        }
        vectors.forEach(FieldVector::close);
        throw e;
      }
      rowsLeftInGroup -= rows;
      return new VectorSchemaRoot(out.getFields(), vectors, rows);
    } catch (IOException e) {
      throw failure(e);
    } catch (DataSourceException | org.apache.arrow.memory.OutOfMemoryException e) {
      throw e;
    } catch (RuntimeException e) {
      throw failure(e);
    }
  }

  private DataSourceException failure(Exception e) {
    return new DataSourceException(
        "Cannot read "
            + split
            + " of Parquet file "
            + split.path()
            + ": "
            + e.getMessage()
            + "; check that the file is valid Parquet",
        e);
  }

  private void openGroup(int index) throws IOException {
    RowGroup group = metadata.getRow_groups().get(index);
    readers = new ColumnReaderImpl[columns.size()];
    decoders = new ParquetPageDecoder[columns.size()];
    // Fetch every projected column chunk of the row group at once: an object store merges
    // nearby chunks into one request and runs several requests in parallel.
    List<ObjectReader.Range> ranges = new ArrayList<>(columns.size());
    for (Column col : columns) {
      ColumnMetaData meta = group.getColumns().get(col.leaf()).getMeta_data();
      long start = meta.getData_page_offset();
      if (meta.isSetDictionary_page_offset()
          && meta.getDictionary_page_offset() > 0
          && meta.getDictionary_page_offset() < start) {
        start = meta.getDictionary_page_offset();
      }
      long length = meta.getTotal_compressed_size();
      if (start < 4 || length < 0 || length > Integer.MAX_VALUE || start + length > file.size()) {
        throw new IOException(
            "column "
                + col.field().getName()
                + " of row group "
                + index
                + " lies outside the file");
      }
      ranges.add(new ObjectReader.Range(start, (int) length));
    }
    // The previous row group's decoders are done with their chunks: read into the same arrays.
    if (chunkBuffers == null) {
      chunkBuffers = new byte[columns.size()][];
      decoderScratch = new ParquetPageDecoder.Scratch[columns.size()];
      for (int c = 0; c < columns.size(); c++) {
        decoderScratch[c] = new ParquetPageDecoder.Scratch();
      }
    }
    List<ObjectReader.Slice> chunks = file.readRanges(ranges, chunkBuffers);
    for (int c = 0; c < columns.size(); c++) {
      Column col = columns.get(c);
      ColumnMetaData meta = group.getColumns().get(col.leaf()).getMeta_data();
      ObjectReader.Slice bytes = chunks.get(c);
      ColumnDescriptor descriptor = descriptor(col.element());
      ParquetColumnPages pages =
          new ParquetColumnPages(
              bytes.data(),
              bytes.start(),
              bytes.start() + bytes.length(),
              descriptor,
              meta.getCodec(),
              meta.getNum_values());
      decoders[c] =
          ParquetPageDecoder.of(
              pages,
              meta.getEncodings(),
              layout(col),
              target(col.kind()),
              col.element().getType_length(),
              descriptor.getMaxDefinitionLevel() > 0,
              decoderScratch[c]);
      if (decoders[c] == null) {
        readers[c] = new ColumnReaderImpl(descriptor, pages, new PrimitiveConverter() {}, writer);
      }
    }
    rowsLeftInGroup = group.getNum_rows();
  }

  /** How the fast decoder reads the column's values, or null when it cannot. */
  private static ParquetPageDecoder.Layout layout(Column col) {
    return switch (col.kind()) {
      case INT32, DATE_DAY, FLOAT, UINT32_AS_INT64, DECIMAL_INT32 -> ParquetPageDecoder.Layout.INT;
      case INT64, DOUBLE, DECIMAL_INT64 -> ParquetPageDecoder.Layout.LONG;
      case DECIMAL_BYTES ->
          col.element().getType() == Type.FIXED_LEN_BYTE_ARRAY
              ? ParquetPageDecoder.Layout.BIG_ENDIAN
              : null;
      case BYTES -> ParquetPageDecoder.Layout.BYTES;
      case BOOLEAN, INT8, INT16 -> null;
    };
  }

  /** How the fast decoder writes the column's vector, or null when it cannot. */
  private static ParquetPageDecoder.Target target(Kind kind) {
    return switch (kind) {
      // Floats travel as their bit patterns: the vectors store exactly those.
      case INT32, DATE_DAY, FLOAT -> ParquetPageDecoder.Target.INT32;
      case INT64, DOUBLE -> ParquetPageDecoder.Target.INT64;
      case UINT32_AS_INT64 -> ParquetPageDecoder.Target.UINT32_AS_INT64;
      case DECIMAL_INT32, DECIMAL_INT64, DECIMAL_BYTES -> ParquetPageDecoder.Target.DECIMAL;
      case BYTES -> ParquetPageDecoder.Target.BYTES;
      case BOOLEAN, INT8, INT16 -> null;
    };
  }

  private static ColumnDescriptor descriptor(SchemaElement e) {
    // The file format's enum and parquet-java's differ only in BYTE_ARRAY's name.
    PrimitiveType.PrimitiveTypeName name =
        e.getType() == Type.BYTE_ARRAY
            ? PrimitiveType.PrimitiveTypeName.BINARY
            : PrimitiveType.PrimitiveTypeName.valueOf(e.getType().name());
    boolean optional = e.getRepetition_type() != FieldRepetitionType.REQUIRED;
    Types.PrimitiveBuilder<PrimitiveType> b =
        optional ? Types.optional(name) : Types.required(name);
    if (name == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
      b.length(e.getType_length());
    }
    return new ColumnDescriptor(
        new String[] {e.getName()}, b.named(e.getName()), 0, optional ? 1 : 0);
  }

  /** Reads {@code rows} values of one column with the fast page decoder into a new vector. */
  private FieldVector decode(Column col, ParquetPageDecoder decoder, int rows) throws IOException {
    FieldVector vector = col.field().createVector(allocator);
    try {
      if (vector instanceof BaseFixedWidthVector fixed) {
        fixed.allocateNew(rows);
      }
      decoder.read(vector, rows);
      vector.setValueCount(rows);
      return vector;
    } catch (IOException | RuntimeException e) {
      vector.close();
      throw e;
    }
  }

  /** Reads {@code rows} values of one column into a new vector; one loop per kind, no boxing. */
  private FieldVector fill(Column col, ColumnReaderImpl r, int rows) {
    FieldVector vector = col.field().createVector(allocator);
    try {
      if (vector instanceof BaseFixedWidthVector fixed) {
        fixed.allocateNew(rows);
      } else {
        ((BaseVariableWidthVector) vector).allocateNew((long) rows * 16, rows);
      }
      int def = r.getDescriptor().getMaxDefinitionLevel();
      switch (col.kind()) {
        case BOOLEAN -> {
          BitVector v = (BitVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, r.getBoolean() ? 1 : 0);
            }
          }
        }
        case INT8 -> {
          TinyIntVector v = (TinyIntVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, (byte) r.getInteger());
            }
          }
        }
        case INT16 -> {
          SmallIntVector v = (SmallIntVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, (short) r.getInteger());
            }
          }
        }
        case INT32 -> {
          IntVector v = (IntVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, r.getInteger());
            }
          }
        }
        case DATE_DAY -> {
          DateDayVector v = (DateDayVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, r.getInteger());
            }
          }
        }
        case INT64 -> {
          BigIntVector v = (BigIntVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, r.getLong());
            }
          }
        }
        case UINT32_AS_INT64 -> {
          BigIntVector v = (BigIntVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, Integer.toUnsignedLong(r.getInteger()));
            }
          }
        }
        case FLOAT -> {
          Float4Vector v = (Float4Vector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, r.getFloat());
            }
          }
        }
        case DOUBLE -> {
          Float8Vector v = (Float8Vector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, r.getDouble());
            }
          }
        }
        case BYTES -> {
          BaseVariableWidthVector v = (BaseVariableWidthVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              Binary b = r.getBinary();
              ByteBuffer buf = b.toByteBuffer();
              v.setSafe(i, buf, buf.position(), buf.remaining());
            } else {
              v.setNull(i);
            }
          }
        }
        case DECIMAL_INT32 -> {
          DecimalVector v = (DecimalVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, r.getInteger());
            }
          }
        }
        case DECIMAL_INT64 -> {
          DecimalVector v = (DecimalVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              v.set(i, r.getLong());
            }
          }
        }
        case DECIMAL_BYTES -> {
          DecimalVector v = (DecimalVector) vector;
          for (int i = 0; i < rows; i++, r.consume()) {
            if (r.getCurrentDefinitionLevel() == def) {
              Binary b = r.getBinary();
              if (b.length() <= 8) {
                // Most decimals fit a long: no byte[] copy per value.
                v.set(i, bigEndianLong(b.toByteBuffer()));
              } else {
                v.setBigEndian(i, b.getBytesUnsafe());
              }
            }
          }
        }
      }
      vector.setValueCount(rows);
      return vector;
    } catch (RuntimeException e) {
      vector.close();
      throw e;
    }
  }

  /** The big-endian two's-complement integer in {@code buf}'s remaining (at most 8) bytes. */
  private static long bigEndianLong(ByteBuffer buf) {
    int at = buf.position();
    int end = buf.limit();
    if (at == end) {
      return 0;
    }
    long x = buf.get(at); // the sign extends from the first byte
    for (int j = at + 1; j < end; j++) {
      x = (x << 8) | (buf.get(j) & 0xFF);
    }
    return x;
  }

  private void closeQuietly() {
    try {
      file.close();
    } catch (RuntimeException ignored) {
      // Nothing was read yet; the original failure is what matters.
    }
  }

  /** Bytes fetched from the file so far (footer excluded when it came from the cache). */
  long fetchedBytes() {
    return file.fetchedBytes();
  }

  @Override
  public void close() {
    readers = null;
    decoders = null;
    file.close();
  }
}
