package dev.quiver.binding.datasource.parquet;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageWriter;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.statistics.geospatial.GeospatialStatistics;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;

/**
 * Collects the compressed pages of one column chunk in memory, with what its metadata records
 * (sizes, encodings, value count, merged statistics), until the row group is written out. The
 * dictionary page arrives last (when the chunk is finished) but must come first in the file, so it
 * is held apart.
 */
final class ColumnChunkPages implements PageWriter {
  private final ColumnDescriptor column;
  private final ParquetCodec codec;
  private final ByteArrayOutputStream data = new ByteArrayOutputStream(1 << 16);
  private byte[] dictionary;
  private long uncompressedBytes;
  private long values;
  private final Set<org.apache.parquet.format.Encoding> encodings =
      EnumSet.noneOf(org.apache.parquet.format.Encoding.class);
  private Statistics<?> statistics;
  private boolean nan;

  ColumnChunkPages(ColumnDescriptor column, ParquetCodec codec) {
    this.column = column;
    this.codec = codec;
    this.statistics = Statistics.createStats(column.getPrimitiveType());
    // Levels are RLE-encoded whenever a column has any.
    encodings.add(org.apache.parquet.format.Encoding.RLE);
  }

  @Override
  public void writePage(
      BytesInput bytes,
      int valueCount,
      Statistics<?> pageStatistics,
      Encoding rlEncoding,
      Encoding dlEncoding,
      Encoding valuesEncoding)
      throws IOException {
    writePage(bytes, valueCount, -1, pageStatistics, rlEncoding, dlEncoding, valuesEncoding);
  }

  @Override
  public void writePage(
      BytesInput bytes,
      int valueCount,
      int rowCount,
      Statistics<?> pageStatistics,
      Encoding rlEncoding,
      Encoding dlEncoding,
      Encoding valuesEncoding)
      throws IOException {
    byte[] raw = bytes.toByteArray();
    byte[] stored = codec.compress(raw);
    PageHeader header = new PageHeader(PageType.DATA_PAGE, raw.length, stored.length);
    // A column without levels has no level bytes; parquet-mr calls that BIT_PACKED, which
    // some readers refuse: say RLE, as Arrow does.
    header.setData_page_header(
        new DataPageHeader(
            valueCount,
            thrift(valuesEncoding),
            levelEncoding(column.getMaxDefinitionLevel(), dlEncoding),
            levelEncoding(column.getMaxRepetitionLevel(), rlEncoding)));
    int before = data.size();
    Util.writePageHeader(header, data);
    uncompressedBytes += data.size() - before + raw.length;
    data.write(stored);
    values += valueCount;
    encodings.add(thrift(valuesEncoding));
    statistics.mergeStatistics(pageStatistics);
    nan |= pageStatistics.getNanCount() > 0;
  }

  /** What ColumnWriterV1 calls: size and geospatial statistics are not recorded. */
  @Override
  public void writePage(
      BytesInput bytes,
      int valueCount,
      int rowCount,
      Statistics<?> pageStatistics,
      SizeStatistics sizeStatistics,
      GeospatialStatistics geospatialStatistics,
      Encoding rlEncoding,
      Encoding dlEncoding,
      Encoding valuesEncoding)
      throws IOException {
    writePage(bytes, valueCount, rowCount, pageStatistics, rlEncoding, dlEncoding, valuesEncoding);
  }

  @Override
  public void writePageV2(
      int rowCount,
      int nullCount,
      int valueCount,
      BytesInput repetitionLevels,
      BytesInput definitionLevels,
      Encoding dataEncoding,
      BytesInput data,
      Statistics<?> statistics) {
    // The writer builds its column writers with ColumnWriteStoreV1, which writes v1 pages only.
    throw new UnsupportedOperationException("data page v2 is not written");
  }

  @Override
  public void writeDictionaryPage(DictionaryPage page) throws IOException {
    byte[] raw = page.getBytes().toByteArray();
    byte[] stored = codec.compress(raw);
    PageHeader header = new PageHeader(PageType.DICTIONARY_PAGE, raw.length, stored.length);
    header.setDictionary_page_header(
        new DictionaryPageHeader(
            page.getDictionarySize(), org.apache.parquet.format.Encoding.PLAIN));
    ByteArrayOutputStream out = new ByteArrayOutputStream(stored.length + 32);
    Util.writePageHeader(header, out);
    uncompressedBytes += out.size() + raw.length;
    out.write(stored);
    dictionary = out.toByteArray();
    encodings.add(org.apache.parquet.format.Encoding.PLAIN);
  }

  /** Bytes buffered so far (what the row group will take in the file). */
  @Override
  public long getMemSize() {
    return data.size() + (dictionary == null ? 0 : dictionary.length);
  }

  @Override
  public long allocatedSize() {
    return getMemSize();
  }

  @Override
  public String memUsageString(String prefix) {
    return prefix + " " + column + " " + getMemSize() + " bytes";
  }

  /** Writes the chunk at {@code out}'s position {@code offset}; returns its metadata. */
  ColumnChunk writeTo(OutputStream out, long offset) throws IOException {
    long dictionaryOffset = offset;
    long dataOffset = offset;
    if (dictionary != null) {
      out.write(dictionary);
      dataOffset += dictionary.length;
    }
    data.writeTo(out);
    List<org.apache.parquet.format.Encoding> list = new ArrayList<>(encodings);
    ColumnMetaData meta =
        new ColumnMetaData(
            org.apache.parquet.format.Type.valueOf(
                column.getPrimitiveType().getPrimitiveTypeName().name().equals("BINARY")
                    ? "BYTE_ARRAY"
                    : column.getPrimitiveType().getPrimitiveTypeName().name()),
            list,
            List.of(column.getPath()),
            codec.thrift(),
            values,
            uncompressedBytes,
            getMemSize(),
            dataOffset);
    if (dictionary != null) {
      meta.setDictionary_page_offset(dictionaryOffset);
    }
    meta.setStatistics(ParquetStatistics.toThrift(statistics, nan));
    ColumnChunk chunk = new ColumnChunk(offset);
    chunk.setMeta_data(meta);
    return chunk;
  }

  /** The chunk's statistics over all its pages. */
  Statistics<?> statistics() {
    return statistics;
  }

  private static org.apache.parquet.format.Encoding levelEncoding(int maxLevel, Encoding e) {
    return maxLevel == 0 ? org.apache.parquet.format.Encoding.RLE : thrift(e);
  }

  private static org.apache.parquet.format.Encoding thrift(Encoding e) {
    return org.apache.parquet.format.Encoding.valueOf(e.name());
  }
}
