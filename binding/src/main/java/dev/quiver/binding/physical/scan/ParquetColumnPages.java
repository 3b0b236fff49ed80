package dev.quiver.binding.physical.scan;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;

/**
 * The pages of one column chunk, held in memory: as parquet-java pages for its column reader, or as
 * raw byte ranges for {@link ParquetPageDecoder} (an uncompressed page is then never copied). Pages
 * are decompressed by {@link ParquetCodecs}.
 */
final class ParquetColumnPages implements PageReader {
  /** Bytes {@code data[start, end)}. */
  record Slice(byte[] data, int start, int end) {
    int length() {
      return end - start;
    }

    BytesInput bytes() {
      return BytesInput.from(data, start, end - start);
    }
  }

  /**
   * A data page, decompressed: definition levels in {@code levels} (for a V1 page, length-prefixed
   * at the start of {@code values}, and {@code levels} is null), values in {@code values}.
   */
  record RawPage(
      int rows, org.apache.parquet.format.Encoding valueEncoding, Slice levels, Slice values) {}

  /** The dictionary page: {@code count} values in {@code encoding}. */
  record RawDictionary(Slice values, int count, org.apache.parquet.format.Encoding encoding) {}

  private final ColumnDescriptor column;
  private final CompressionCodec codec;
  private final long valueCount;
  private final byte[] chunk;
  private final int end;
  private int pos;
  private final RawDictionary dictionary;
  private PageHeader pending;

  /**
   * @param chunk holds the column chunk's bytes, from its first page to its end, at {@code [start,
   *     end)}
   * @param valueCount values (nulls included) in the chunk
   */
  ParquetColumnPages(
      byte[] chunk,
      int start,
      int end,
      ColumnDescriptor column,
      CompressionCodec codec,
      long valueCount)
      throws IOException {
    if (!ParquetCodecs.supports(codec)) {
      throw new IOException("compression codec " + codec + " is not supported");
    }
    this.column = column;
    this.codec = codec;
    this.valueCount = valueCount;
    this.chunk = chunk;
    this.pos = start;
    this.end = end;
    RawDictionary dict = null;
    if (pos < end) {
      PageHeader first = readHeader();
      if (first.getType() == PageType.DICTIONARY_PAGE) {
        dict =
            new RawDictionary(
                body(first),
                first.getDictionary_page_header().getNum_values(),
                first.getDictionary_page_header().getEncoding());
      } else {
        pending = first;
      }
    }
    this.dictionary = dict;
  }

  private PageHeader readHeader() throws IOException {
    ByteArrayInputStream in = new ByteArrayInputStream(chunk, pos, end - pos);
    PageHeader header = Util.readPageHeader(in);
    pos = end - in.available();
    return header;
  }

  /** The dictionary page's raw values, or null when the chunk has none. */
  RawDictionary rawDictionary() {
    return dictionary;
  }

  @Override
  public DictionaryPage readDictionaryPage() {
    return dictionary == null
        ? null
        : new DictionaryPage(
            dictionary.values().bytes(), dictionary.count(), encoding(dictionary.encoding()));
  }

  @Override
  public long getTotalValueCount() {
    return valueCount;
  }

  /** The next data page as raw ranges, or null after the last. */
  RawPage readRawPage() throws IOException {
    PageHeader header = nextDataPageHeader();
    if (header == null) {
      return null;
    }
    if (header.getType() == PageType.DATA_PAGE) {
      DataPageHeader h = header.getData_page_header();
      return new RawPage(h.getNum_values(), h.getEncoding(), null, body(header));
    }
    DataPageHeaderV2 h = header.getData_page_header_v2();
    Slice[] parts = bodyV2(header);
    return new RawPage(h.getNum_values(), h.getEncoding(), parts[1], parts[2]);
  }

  /**
   * Passes over the next data page without decompressing it when it holds at most {@code rows} rows
   * (a flat column's page has one value per row); returns its rows, or -1, reading nothing, when it
   * holds more or the chunk has no page left.
   */
  int skipPageWithin(int rows) throws IOException {
    PageHeader header = nextDataPageHeader();
    if (header == null) {
      return -1;
    }
    int pageRows =
        header.getType() == PageType.DATA_PAGE
            ? header.getData_page_header().getNum_values()
            : header.getData_page_header_v2().getNum_values();
    if (pageRows < 0 || pageRows > rows) {
      pending = header;
      return -1;
    }
    take(header.getCompressed_page_size());
    return pageRows;
  }

  @Override
  public DataPage readPage() {
    try {
      PageHeader header = nextDataPageHeader();
      if (header == null) {
        return null;
      }
      if (header.getType() == PageType.DATA_PAGE) {
        DataPageHeader h = header.getData_page_header();
        Slice bytes = body(header);
        return new DataPageV1(
            bytes.bytes(),
            h.getNum_values(),
            bytes.length(),
            Statistics.noopStats(column.getPrimitiveType()),
            encoding(h.getRepetition_level_encoding()),
            encoding(h.getDefinition_level_encoding()),
            encoding(h.getEncoding()));
      }
      DataPageHeaderV2 h = header.getData_page_header_v2();
      Slice[] parts = bodyV2(header);
      return DataPageV2.uncompressed(
          h.getNum_rows(),
          h.getNum_nulls(),
          h.getNum_values(),
          parts[0].bytes(),
          parts[1].bytes(),
          encoding(h.getEncoding()),
          parts[2].bytes(),
          Statistics.noopStats(column.getPrimitiveType()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(
          "Cannot read a page of column " + String.join(".", column.getPath()), e);
    }
  }

  /** The header of the next V1 or V2 data page, skipping other pages; null at the end. */
  private PageHeader nextDataPageHeader() throws IOException {
    while (true) {
      PageHeader header = pending;
      pending = null;
      if (header == null) {
        if (pos >= end) {
          return null;
        }
        header = readHeader();
      }
      if (header.getType() == PageType.DATA_PAGE || header.getType() == PageType.DATA_PAGE_V2) {
        return header;
      }
      // Index pages, and dictionary pages after the first page, carry nothing to decode here.
      take(header.getCompressed_page_size());
    }
  }

  /** A V2 page's repetition levels, definition levels and (decompressed) values. */
  private Slice[] bodyV2(PageHeader header) throws IOException {
    DataPageHeaderV2 h = header.getData_page_header_v2();
    int rl = h.getRepetition_levels_byte_length();
    int dl = h.getDefinition_levels_byte_length();
    int compressed = header.getCompressed_page_size() - rl - dl;
    int uncompressed = header.getUncompressed_page_size() - rl - dl;
    if (rl < 0 || dl < 0 || compressed < 0 || uncompressed < 0) {
      throw new IOException("page header has inconsistent level lengths");
    }
    Slice rlBytes = take(rl);
    Slice dlBytes = take(dl);
    Slice data = take(compressed);
    // Levels are never compressed in a V2 page; the values are unless is_compressed is false.
    if (!h.isSetIs_compressed() || h.isIs_compressed()) {
      data = decompress(data, uncompressed);
    }
    return new Slice[] {rlBytes, dlBytes, data};
  }

  /** The (decompressed) body that follows {@code header}. */
  private Slice body(PageHeader header) throws IOException {
    return decompress(take(header.getCompressed_page_size()), header.getUncompressed_page_size());
  }

  /** The next {@code bytes} bytes of the chunk, without copying them. */
  private Slice take(int bytes) throws IOException {
    if (bytes < 0 || bytes > end - pos) {
      throw new IOException("the column chunk ends inside a page");
    }
    Slice s = new Slice(chunk, pos, pos + bytes);
    pos += bytes;
    return s;
  }

  private Slice decompress(Slice raw, int uncompressedSize) throws IOException {
    if (uncompressedSize < 0) {
      throw new IOException("negative uncompressed page size " + uncompressedSize);
    }
    if (codec == CompressionCodec.UNCOMPRESSED) {
      if (raw.length() != uncompressedSize) {
        throw new IOException(
            "an uncompressed page has "
                + raw.length()
                + " bytes where its header says "
                + uncompressedSize);
      }
      return raw;
    }
    byte[] out =
        ParquetCodecs.decompress(codec, raw.data(), raw.start(), raw.length(), uncompressedSize);
    return new Slice(out, 0, out.length);
  }

  private static Encoding encoding(org.apache.parquet.format.Encoding e) {
    return Encoding.valueOf(e.name());
  }
}
