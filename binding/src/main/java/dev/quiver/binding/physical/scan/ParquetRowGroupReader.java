package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.io.ObjectReader;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.LogicalExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.MaskWords;
import dev.quiver.binding.physical.kernel.Take;
import dev.quiver.binding.physical.kernel.TakeRuns;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.parquet.VersionParser;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.impl.ColumnReaderImpl;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Type;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Types;

/**
 * Decodes a range of one Parquet file's row groups into Arrow batches: the scan's reader for every
 * Parquet file, and what lets a file be split over partitions. Flat columns in the common encodings
 * (PLAIN and dictionary values, RLE levels) go through {@link ParquetPageDecoder}, a page at a
 * time; flat columns in other encodings through parquet-java's column reader with one value copy
 * per {@link ParquetValueKind}; nested columns (structs, lists, maps) through {@link
 * ParquetNestedColumn}. A codec or type it cannot read fails typed, naming the file.
 */
final class ParquetRowGroupReader implements AutoCloseable {
  /**
   * One distinct output column: its file column, how its values convert, and for a nested column
   * the plan that assembles it from its leaves (null for a flat column).
   */
  private record Column(
      Field field, ParquetColumnTree tree, ParquetValueKind kind, ParquetNestedColumn nested) {
    /** The file's leaf columns (column chunks) this column reads, by ordinal. */
    int[] leaves() {
      if (nested == null) {
        return new int[] {tree.firstLeaf()};
      }
      return nested.leaves().stream().mapToInt(l -> l.column().firstLeaf()).toArray();
    }
  }

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
  private ParquetNestedColumn.Reader[] nestedReaders;

  /** Column chunk arrays reused from row group to row group (see ObjectReader#readRanges). */
  private byte[][] chunkBuffers;

  /** Each column's decoder arrays, handed from one row group's decoder to the next. */
  private ParquetPageDecoder.Scratch[] decoderScratch;

  /**
   * The filter evaluated here (late materialization), over {@link #out}; null when the scan has
   * none. Its columns are decoded first; the other flat columns only for the rows it keeps.
   */
  private final PhysicalExpr filter;

  /** The filter's top-level conjuncts, in written order. */
  private final List<PhysicalExpr> conjuncts = new ArrayList<>();

  /** For each column in {@link #columns}, whether the filter reads it. */
  private final boolean[] filterReads;

  /** All-null stand-ins for the columns the filter does not read, by column; made on demand. */
  private FieldVector[] standIns;

  private int[] selection = new int[0];
  private long filteredRows;
  private long skippedPages;

  ParquetRowGroupReader(
      ObjectStore store, ParquetSplit split, Schema out, BufferAllocator allocator, int batchSize) {
    this(store, split, out, allocator, batchSize, null);
  }

  /**
   * A reader that returns only the rows for which {@code filter} (a boolean expression over {@code
   * out}, or null for every row) is true.
   */
  ParquetRowGroupReader(
      ObjectStore store,
      ParquetSplit split,
      Schema out,
      BufferAllocator allocator,
      int batchSize,
      PhysicalExpr filter) {
    this.split = split;
    this.filter = filter;
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
      List<ParquetColumnTree> top = ParquetColumnTree.topLevel(metadata, file);
      Map<String, Integer> byName = new HashMap<>();
      this.source = new int[out.getFields().size()];
      for (int i = 0; i < out.getFields().size(); i++) {
        Field f = out.getFields().get(i);
        Integer seen = byName.get(f.getName());
        if (seen == null) {
          seen = columns.size();
          columns.add(column(top, f, file));
          byName.put(f.getName(), seen);
        }
        source[i] = seen;
      }
      this.filterReads = new boolean[columns.size()];
      if (filter != null) {
        LogicalExpr.conjuncts(filter, conjuncts);
        for (int i : ColumnExpr.referencedBy(filter)) {
          filterReads[source[i]] = true;
        }
      }
      this.writer = writerVersion(metadata.getCreated_by());
      this.nextGroup = split.firstRowGroup();
    } catch (RuntimeException e) {
      closeQuietly();
      throw e;
    }
  }

  /** How output field {@code f} is read from the file's top-level columns {@code top}. */
  private static Column column(List<ParquetColumnTree> top, Field f, String file) {
    ParquetColumnTree tree = ParquetColumnTree.find(top, f.getName());
    if (tree == null) {
      throw new DataSourceException("Parquet file " + file + " has no column " + f.getName());
    }
    if (!tree.isFlat()) {
      return new Column(f, tree, null, ParquetNestedColumn.of(tree, f, file));
    }
    ParquetValueKind kind = ParquetValueKind.of(tree.element(), f.getType());
    if (kind == null) {
      throw new UnsupportedFeatureException(
          "Parquet file "
              + file
              + ": column "
              + f.getName()
              + " of type "
              + tree.element().getType()
              + " cannot be read as "
              + f.getType());
    }
    return new Column(f, tree, kind, null);
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

  /**
   * The next batch of at most {@code batchSize} rows (of the filter's survivors when there is a
   * filter), or null after the last row group.
   */
  VectorSchemaRoot next() {
    try {
      while (true) {
        while (rowsLeftInGroup == 0) {
          if (nextGroup >= endGroup()) {
            return null;
          }
          openGroup(nextGroup++);
        }
        int rows = (int) Math.min(batchSize, rowsLeftInGroup);
        VectorSchemaRoot batch = filter == null ? readAll(rows) : readFiltered(rows);
        rowsLeftInGroup -= rows;
        if (batch != null) {
          return batch;
        }
      }
    } catch (IOException e) {
      throw failure(e);
    } catch (DataSourceException | org.apache.arrow.memory.OutOfMemoryException e) {
      throw e;
    } catch (QuiverException e) {
      throw e; // the filter's own errors (a failed cast, say) keep their type
    } catch (RuntimeException e) {
      throw failure(e);
    }
  }

  /** The next {@code rows} rows of every column. */
  private VectorSchemaRoot readAll(int rows) throws IOException {
    FieldVector[] filled = new FieldVector[columns.size()];
    try {
      for (int c = 0; c < columns.size(); c++) {
        filled[c] = read(c, rows);
      }
    } catch (IOException | RuntimeException e) {
      closeAll(filled);
      throw e;
    }
    return assemble(filled, rows);
  }

  /**
   * The filter's survivors among the next {@code rows} rows, or null when none survives. The
   * filter's columns (and those without a fast decoder) are read whole and the survivors taken; the
   * other columns are decoded for the survivors only, and skipped, whole pages at a time where they
   * can, when there are none.
   */
  private VectorSchemaRoot readFiltered(int rows) throws IOException {
    FieldVector[] filled = new FieldVector[columns.size()];
    FieldVector[] kept = new FieldVector[columns.size()];
    int n;
    try {
      for (int c = 0; c < columns.size(); c++) {
        if (!late(c)) {
          filled[c] = read(c, rows);
        }
      }
      List<FieldVector> in = new ArrayList<>(source.length);
      for (int c : source) {
        in.add(filled[c] != null ? filled[c] : standIn(c, rows));
      }
      n = evaluate(new VectorSchemaRoot(out.getFields(), in, rows));
      filteredRows += rows - n;
      if (n == 0) {
        for (int c = 0; c < columns.size(); c++) {
          if (late(c)) {
            skippedPages += decoders[c].skip(rows);
          }
        }
        return null;
      }
      // Survivors scattered in many short runs are gathered faster from whole decoded columns:
      // selective decoding made TPC-H q20 (15% of rows, one run each) 1.1-1.4 times slower.
      boolean scattered = n < rows && TakeRuns.runs(selection, n) > rows / 32;
      for (int c = 0; c < columns.size(); c++) {
        if (n == rows) {
          kept[c] = filled[c] != null ? filled[c] : read(c, rows);
          filled[c] = null;
        } else if (filled[c] != null || scattered) {
          if (filled[c] == null) {
            filled[c] = read(c, rows);
          }
          kept[c] = Take.take(filled[c], selection, n, allocator);
        } else {
          kept[c] = readSelected(columns.get(c), decoders[c], rows, n);
        }
      }
    } catch (IOException | RuntimeException e) {
      closeAll(kept);
      throw e;
    } finally {
      closeAll(filled);
    }
    return assemble(kept, n);
  }

  /**
   * Evaluates the filter on {@code batch} into {@link #selection}; returns how many rows pass. As
   * FilterExec does: a conjunct at a time, their true rows ANDed as words, done once none is left;
   * should a conjunct fail (on a row an earlier one dropped, say), the whole predicate decides,
   * whose AND evaluates its operands in the written order on the rows still undecided.
   */
  private int evaluate(VectorSchemaRoot batch) {
    int rows = batch.getRowCount();
    if (selection.length < rows) {
      selection = new int[rows];
    }
    try {
      long[] keep = null;
      for (PhysicalExpr conjunct : conjuncts) {
        try (FieldVector mask = conjunct.evaluate(batch, allocator)) {
          keep = MaskWords.andTrue((BitVector) mask, rows, keep);
        }
        if (MaskWords.count(keep) == 0) {
          return 0;
        }
      }
      return MaskWords.toRows(keep, selection);
    } catch (ResourcesExhaustedException | QueryCancelledException e) {
      throw e;
    } catch (QuiverException e) {
      try (FieldVector mask = filter.evaluate(batch, allocator)) {
        return MaskWords.toRows(MaskWords.andTrue((BitVector) mask, rows, null), selection);
      }
    }
  }

  /** Whether column {@code c} is decoded after the filter, for its survivors only. */
  private boolean late(int c) {
    return !filterReads[c] && decoders[c] != null;
  }

  /**
   * An all-null vector of {@code rows} rows standing in for column {@code c}, which the filter does
   * not read.
   */
  private FieldVector standIn(int c, int rows) {
    if (standIns == null) {
      standIns = new FieldVector[columns.size()];
    }
    FieldVector v = standIns[c];
    if (v == null) {
      v = columns.get(c).field().createVector(allocator);
      v.setInitialCapacity(batchSize);
      v.allocateNew();
      standIns[c] = v;
    }
    v.setValueCount(rows);
    return v;
  }

  /** Reads the next {@code rows} values of column {@code c} into a new vector. */
  private FieldVector read(int c, int rows) throws IOException {
    return nestedReaders[c] != null
        ? nestedReaders[c].read(rows, allocator)
        : decoders[c] != null
            ? decode(columns.get(c), decoders[c], rows)
            : fill(columns.get(c), readers[c], rows);
  }

  /** The output batch of {@code rows} rows from each column's vector. */
  private VectorSchemaRoot assemble(FieldVector[] filled, int rows) {
    List<FieldVector> vectors = new ArrayList<>(out.getFields().size());
    try {
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
      closeAll(filled);
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(out.getFields(), vectors, rows);
  }

  private static void closeAll(FieldVector[] vectors) {
    for (FieldVector v : vectors) {
      if (v != null) {
        v.close();
      }
    }
  }

  /** Rows skipped by the filter so far, and pages of other columns passed over undecoded. */
  long filteredRows() {
    return filteredRows;
  }

  long skippedPages() {
    return skippedPages;
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
    nestedReaders = new ParquetNestedColumn.Reader[columns.size()];
    // Fetch every projected column chunk of the row group at once: an object store merges
    // nearby chunks into one request and runs several requests in parallel.
    List<ObjectReader.Range> ranges = new ArrayList<>();
    for (Column col : columns) {
      for (int leaf : col.leaves()) {
        ranges.add(chunkRange(group, leaf, col, index));
      }
    }
    // The previous row group's decoders are done with their chunks: read into the same arrays.
    if (chunkBuffers == null) {
      chunkBuffers = new byte[ranges.size()][];
      decoderScratch = new ParquetPageDecoder.Scratch[columns.size()];
      for (int c = 0; c < columns.size(); c++) {
        decoderScratch[c] = new ParquetPageDecoder.Scratch();
      }
    }
    List<ObjectReader.Slice> chunks = file.readRanges(ranges, chunkBuffers);
    int chunk = 0;
    for (int c = 0; c < columns.size(); c++) {
      Column col = columns.get(c);
      if (col.nested() != null) {
        List<ParquetNestedColumn.Leaf> leaves = col.nested().leaves();
        ColumnReaderImpl[] leafReaders = new ColumnReaderImpl[leaves.size()];
        for (int l = 0; l < leaves.size(); l++) {
          ParquetNestedColumn.Leaf leaf = leaves.get(l);
          ColumnDescriptor descriptor =
              descriptor(leaf.column().element(), leaf.path(), leaf.rep(), leaf.def());
          ParquetColumnPages pages =
              pages(group, leaf.column().firstLeaf(), chunks.get(chunk++), descriptor);
          leafReaders[l] =
              new ColumnReaderImpl(descriptor, pages, new PrimitiveConverter() {}, writer);
        }
        nestedReaders[c] = col.nested().open(leafReaders);
        continue;
      }
      SchemaElement element = col.tree().element();
      boolean optional = element.getRepetition_type() != FieldRepetitionType.REQUIRED;
      ColumnDescriptor descriptor =
          descriptor(element, new String[] {element.getName()}, 0, optional ? 1 : 0);
      ColumnMetaData meta = group.getColumns().get(col.tree().firstLeaf()).getMeta_data();
      ParquetColumnPages pages =
          pages(group, col.tree().firstLeaf(), chunks.get(chunk++), descriptor);
      decoders[c] =
          ParquetPageDecoder.of(
              pages,
              meta.getEncodings(),
              layout(col),
              target(col.kind()),
              element.getType_length(),
              optional,
              decoderScratch[c]);
      if (decoders[c] == null) {
        readers[c] = new ColumnReaderImpl(descriptor, pages, new PrimitiveConverter() {}, writer);
      }
    }
    rowsLeftInGroup = group.getNum_rows();
  }

  /** Where leaf column {@code leaf}'s chunk of row group {@code index} lies in the file. */
  private ObjectReader.Range chunkRange(RowGroup group, int leaf, Column col, int index)
      throws IOException {
    if (leaf >= group.getColumnsSize() || !group.getColumns().get(leaf).isSetMeta_data()) {
      throw new IOException(
          "row group " + index + " has no column chunk for column " + col.field().getName());
    }
    ColumnMetaData meta = group.getColumns().get(leaf).getMeta_data();
    if (!ParquetCodecs.supports(meta.getCodec())) {
      throw new UnsupportedFeatureException(
          "Parquet file "
              + split.path()
              + ": column "
              + String.join(".", meta.getPath_in_schema())
              + " is compressed with "
              + meta.getCodec()
              + ", which Quiver cannot decompress; rewrite the file with one of "
              + ParquetCodecs.SUPPORTED);
    }
    long start = meta.getData_page_offset();
    if (meta.isSetDictionary_page_offset()
        && meta.getDictionary_page_offset() > 0
        && meta.getDictionary_page_offset() < start) {
      start = meta.getDictionary_page_offset();
    }
    long length = meta.getTotal_compressed_size();
    if (start < 4 || length < 0 || length > Integer.MAX_VALUE || start + length > file.size()) {
      throw new IOException(
          "column " + col.field().getName() + " of row group " + index + " lies outside the file");
    }
    return new ObjectReader.Range(start, (int) length);
  }

  private static ParquetColumnPages pages(
      RowGroup group, int leaf, ObjectReader.Slice bytes, ColumnDescriptor descriptor)
      throws IOException {
    ColumnMetaData meta = group.getColumns().get(leaf).getMeta_data();
    return new ParquetColumnPages(
        bytes.data(),
        bytes.start(),
        bytes.start() + bytes.length(),
        descriptor,
        meta.getCodec(),
        meta.getNum_values());
  }

  /** How the fast decoder reads the column's values, or null when it cannot. */
  private static ParquetPageDecoder.Layout layout(Column col) {
    return switch (col.kind()) {
      case INT8,
          INT16,
          INT32,
          DATE_DAY,
          FLOAT,
          UINT32_AS_INT64,
          DECIMAL_INT32,
          INT32_MILLIS_AS_MICROS ->
          ParquetPageDecoder.Layout.INT;
      case INT64, DOUBLE, DECIMAL_INT64, UINT64, MICROS, MILLIS_AS_MICROS, NANOS_AS_MICROS ->
          ParquetPageDecoder.Layout.LONG;
      case DECIMAL_BYTES ->
          col.tree().element().getType() == Type.FIXED_LEN_BYTE_ARRAY
              ? ParquetPageDecoder.Layout.BIG_ENDIAN
              : null;
      case FIXED_BYTES -> ParquetPageDecoder.Layout.BIG_ENDIAN;
      case BYTES -> ParquetPageDecoder.Layout.BYTES;
      case BOOLEAN -> ParquetPageDecoder.Layout.BITS;
      case FLOAT16, FLOAT_AS_DOUBLE, INT96_AS_MICROS -> null;
    };
  }

  /** How the fast decoder writes the column's vector, or null when it cannot. */
  private static ParquetPageDecoder.Target target(ParquetValueKind kind) {
    return switch (kind) {
      // Floats travel as their bit patterns: the vectors store exactly those.
      case INT32, DATE_DAY, FLOAT -> ParquetPageDecoder.Target.INT32;
      // Timestamps and unsigned longs land as the file's integers; finish() converts them.
      case INT64, DOUBLE, UINT64, MICROS, MILLIS_AS_MICROS, NANOS_AS_MICROS ->
          ParquetPageDecoder.Target.INT64;
      case UINT32_AS_INT64 -> ParquetPageDecoder.Target.UINT32_AS_INT64;
      case INT32_MILLIS_AS_MICROS -> ParquetPageDecoder.Target.INT32_AS_INT64;
      case INT8 -> ParquetPageDecoder.Target.INT8;
      case INT16 -> ParquetPageDecoder.Target.INT16;
      case DECIMAL_INT32, DECIMAL_INT64, DECIMAL_BYTES -> ParquetPageDecoder.Target.DECIMAL;
      case FIXED_BYTES -> ParquetPageDecoder.Target.FIXED;
      case BYTES -> ParquetPageDecoder.Target.BYTES;
      case BOOLEAN -> ParquetPageDecoder.Target.BITS;
      case FLOAT16, FLOAT_AS_DOUBLE, INT96_AS_MICROS -> null;
    };
  }

  /** parquet-java's description of leaf column {@code e} at {@code path} with its max levels. */
  private static ColumnDescriptor descriptor(
      SchemaElement e, String[] path, int maxRep, int maxDef) {
    // The file format's enum and parquet-java's differ only in BYTE_ARRAY's name.
    PrimitiveType.PrimitiveTypeName name =
        e.getType() == Type.BYTE_ARRAY
            ? PrimitiveType.PrimitiveTypeName.BINARY
            : PrimitiveType.PrimitiveTypeName.valueOf(e.getType().name());
    Types.PrimitiveBuilder<PrimitiveType> b =
        switch (e.getRepetition_type()) {
          case REQUIRED -> Types.required(name);
          case OPTIONAL -> Types.optional(name);
          case REPEATED -> Types.repeated(name);
        };
    if (name == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
      b.length(e.getType_length());
    }
    return new ColumnDescriptor(path, b.named(e.getName()), maxRep, maxDef);
  }

  /** Reads {@code rows} values of one column with the fast page decoder into a new vector. */
  private FieldVector decode(Column col, ParquetPageDecoder decoder, int rows) throws IOException {
    FieldVector vector = col.field().createVector(allocator);
    try {
      if (vector instanceof BaseFixedWidthVector fixed) {
        fixed.allocateNew(rows);
      }
      decoder.read(vector, rows);
      col.kind().finish(vector, rows);
      vector.setValueCount(rows);
      return vector;
    } catch (IOException | RuntimeException e) {
      vector.close();
      throw e;
    }
  }

  /**
   * Reads the values of rows {@link #selection}[0..n) among the next {@code rows} into a new
   * vector.
   */
  private FieldVector readSelected(Column col, ParquetPageDecoder decoder, int rows, int n)
      throws IOException {
    FieldVector vector = col.field().createVector(allocator);
    try {
      if (vector instanceof BaseFixedWidthVector fixed) {
        fixed.allocateNew(n);
      }
      skippedPages += decoder.readSelected(vector, rows, selection, n);
      col.kind().finish(vector, n);
      vector.setValueCount(n);
      return vector;
    } catch (IOException | RuntimeException e) {
      vector.close();
      throw e;
    }
  }

  /** Reads {@code rows} values of one column into a new vector, one value copy at a time. */
  private FieldVector fill(Column col, ColumnReaderImpl r, int rows) {
    FieldVector vector = col.field().createVector(allocator);
    try {
      if (vector instanceof BaseFixedWidthVector fixed) {
        fixed.allocateNew(rows);
      } else {
        ((BaseVariableWidthVector) vector).allocateNew((long) rows * 16, rows);
      }
      int def = r.getDescriptor().getMaxDefinitionLevel();
      ParquetValueKind kind = col.kind();
      for (int i = 0; i < rows; i++, r.consume()) {
        if (r.getCurrentDefinitionLevel() == def) {
          kind.copy(r, vector, i);
        }
      }
      vector.setValueCount(rows);
      return vector;
    } catch (RuntimeException e) {
      vector.close();
      throw e;
    }
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
    if (standIns != null) {
      closeAll(standIns);
      standIns = null;
    }
    readers = null;
    decoders = null;
    nestedReaders = null;
    file.close();
  }
}
