package dev.quiver.binding.datasource.parquet;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.impl.ColumnWriteStoreV1;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnOrder;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.TypeDefinedOrder;
import org.apache.parquet.format.Util;

/**
 * Writes Arrow batches as one Parquet file to a stream, in Java: parquet-column encodes the pages
 * (dictionary first, plain past the dictionary limit, RLE levels, statistics) and this class lays
 * them out as row groups of {@link ParquetWriteOptions#rowGroupRows()} rows, compressed with the
 * options' codec, and ends the file with its footer. Row groups are held in memory until complete.
 * The caller owns the stream: {@link #finish()} writes the footer and flushes, the caller closes
 * (or, on failure, discards) it.
 */
public final class ParquetFileWriter {
  /**
   * The Arrow field metadata key whose integer value becomes the column's Parquet field id (the key
   * Arrow's own writer reads; Iceberg resolves columns by these ids).
   */
  public static final String FIELD_ID_KEY = "PARQUET:field_id";

  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  /** Rows written to every column before the page size checks: bounds a page's overshoot. */
  private static final int SLICE_ROWS = 1024;

  private static final String CREATED_BY =
      "quiver version "
          + java.util.Objects.requireNonNullElse(
              ParquetFileWriter.class.getPackage().getImplementationVersion(), "dev");

  private final PositionStream out;
  private final ParquetSchemaMapping mapping;
  private final ParquetWriteOptions options;
  private final ParquetProperties properties;
  private final List<RowGroup> rowGroups = new ArrayList<>();
  private Map<ColumnDescriptor, ColumnChunkPages> pages;
  private ColumnWriteStore store;
  private LeafShredder[] shredders;
  private VectorSchemaRoot bound;
  private int groupRows;
  private long rows;
  private boolean finished;

  /**
   * Starts a file of {@code schema}'s columns on {@code out}; throws {@link
   * dev.quiver.binding.errors.DataSourceException} naming a column whose type Parquet cannot hold.
   */
  public ParquetFileWriter(OutputStream out, Schema schema, ParquetWriteOptions options)
      throws IOException {
    this.mapping = ParquetSchemaMapping.of(schema);
    this.options = options;
    this.properties =
        ParquetProperties.builder()
            .withPageSize(options.pageBytes())
            .withDictionaryPageSize(options.dictionaryPageBytes())
            .withDictionaryEncoding(options.dictionary())
            .withValuesWriterFactory(new DictionaryFirstValuesWriters())
            .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
            .withSizeStatisticsEnabled(false)
            .build();
    this.out = new PositionStream(out);
    this.out.write(MAGIC);
  }

  /** Appends every row of {@code batch}. */
  public void write(VectorSchemaRoot batch) throws IOException {
    if (finished) {
      throw new IllegalStateException("the Parquet file is finished");
    }
    int n = batch.getRowCount();
    int from = 0;
    while (from < n) {
      if (store == null) {
        startRowGroup();
      }
      if (shredders == null || bound != batch) {
        shredders = bind(batch);
        bound = batch;
      }
      int to = Math.min(n, Math.min(from + SLICE_ROWS, from + options.rowGroupRows() - groupRows));
      for (LeafShredder s : shredders) {
        s.write(from, to);
      }
      for (int r = from; r < to; r++) {
        store.endRecord();
      }
      groupRows += to - from;
      rows += to - from;
      from = to;
      if (groupRows >= options.rowGroupRows()
          || store.getBufferedSize() >= options.rowGroupBytes()) {
        endRowGroup();
      }
    }
    // The batch's buffers may be reused or freed after this call.
    shredders = null;
    bound = null;
  }

  /** Rows written so far. */
  public long rows() {
    return rows;
  }

  /** Bytes written to the stream so far (complete row groups only). */
  public long bytesWritten() {
    return out.position;
  }

  /**
   * Writes the last row group and the footer, flushes the stream and returns the footer (row groups
   * with their column statistics, for callers that record them, such as table formats).
   */
  public FileMetaData finish() throws IOException {
    if (finished) {
      throw new IllegalStateException("the Parquet file is finished");
    }
    finished = true;
    if (store != null && groupRows > 0) {
      endRowGroup();
    }
    FileMetaData footer =
        new FileMetaData(
            1, ParquetSchemaElements.of(mapping.message()), rows, List.copyOf(rowGroups));
    footer.setCreated_by(CREATED_BY);
    List<ColumnOrder> orders = new ArrayList<>();
    for (int i = 0; i < mapping.leaves().size(); i++) {
      orders.add(ColumnOrder.TYPE_ORDER(new TypeDefinedOrder()));
    }
    footer.setColumn_orders(orders);
    long start = out.position;
    Util.writeFileMetaData(footer, out);
    int length = Math.toIntExact(out.position - start);
    out.write(
        new byte[] {
          (byte) length, (byte) (length >>> 8), (byte) (length >>> 16), (byte) (length >>> 24)
        });
    out.write(MAGIC);
    out.flush();
    return footer;
  }

  private void startRowGroup() {
    pages = new HashMap<>();
    for (LeafColumn leaf : mapping.leaves()) {
      pages.put(leaf.descriptor(), new ColumnChunkPages(leaf.descriptor(), options.codec()));
    }
    Map<ColumnDescriptor, ColumnChunkPages> current = pages;
    store = new ColumnWriteStoreV1(mapping.message(), current::get, properties);
    groupRows = 0;
  }

  private LeafShredder[] bind(VectorSchemaRoot batch) {
    List<LeafColumn> leaves = mapping.leaves();
    LeafShredder[] out = new LeafShredder[leaves.size()];
    for (int i = 0; i < out.length; i++) {
      LeafColumn leaf = leaves.get(i);
      out[i] = new LeafShredder(leaf, batch, store.getColumnWriter(leaf.descriptor()));
    }
    return out;
  }

  private void endRowGroup() throws IOException {
    store.flush();
    long start = out.position;
    List<ColumnChunk> chunks = new ArrayList<>();
    long uncompressed = 0;
    for (LeafColumn leaf : mapping.leaves()) {
      ColumnChunk chunk = pages.get(leaf.descriptor()).writeTo(out, out.position);
      uncompressed += chunk.getMeta_data().getTotal_uncompressed_size();
      chunks.add(chunk);
    }
    RowGroup group = new RowGroup(chunks, uncompressed, groupRows);
    group.setFile_offset(start);
    group.setTotal_compressed_size(out.position - start);
    group.setOrdinal((short) rowGroups.size());
    rowGroups.add(group);
    store = null;
    pages = null;
    shredders = null;
  }

  /** Counts the bytes passed to the caller's stream, which it neither buffers nor closes. */
  private static final class PositionStream extends FilterOutputStream {
    long position;

    PositionStream(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      position++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      position += len;
    }

    @Override
    public void close() throws IOException {
      flush();
    }
  }
}
