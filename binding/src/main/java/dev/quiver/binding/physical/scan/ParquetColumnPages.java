package dev.quiver.binding.physical.scan;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.EnumSet;
import java.util.Set;
import java.util.zip.GZIPInputStream;
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
import org.xerial.snappy.Snappy;

/**
 * The pages of one column chunk, held in memory, for parquet-java's column reader. Pages are
 * decompressed with each codec's own library (snappy-java, zstd-jni, java.util.zip) so that no
 * Hadoop codec classes are needed.
 */
final class ParquetColumnPages implements PageReader {
  /** Codecs this reader can decompress. */
  static final Set<CompressionCodec> CODECS =
      EnumSet.of(
          CompressionCodec.UNCOMPRESSED,
          CompressionCodec.SNAPPY,
          CompressionCodec.GZIP,
          CompressionCodec.ZSTD);

  private final ColumnDescriptor column;
  private final CompressionCodec codec;
  private final long valueCount;
  private final InputStream in;
  private final DictionaryPage dictionary;
  private PageHeader pending;

  /**
   * @param chunk the column chunk's bytes, from its first page to its end
   * @param valueCount values (nulls included) in the chunk
   */
  ParquetColumnPages(
      byte[] chunk, ColumnDescriptor column, CompressionCodec codec, long valueCount)
      throws IOException {
    if (!CODECS.contains(codec)) {
      throw new IOException("compression codec " + codec + " is not supported");
    }
    this.column = column;
    this.codec = codec;
    this.valueCount = valueCount;
    this.in = new ByteArrayInputStream(chunk);
    DictionaryPage dict = null;
    if (in.available() > 0) {
      PageHeader first = Util.readPageHeader(in);
      if (first.getType() == PageType.DICTIONARY_PAGE) {
        byte[] bytes = body(first);
        dict =
            new DictionaryPage(
                BytesInput.from(bytes),
                first.getDictionary_page_header().getNum_values(),
                encoding(first.getDictionary_page_header().getEncoding()));
      } else {
        pending = first;
      }
    }
    this.dictionary = dict;
  }

  @Override
  public DictionaryPage readDictionaryPage() {
    return dictionary;
  }

  @Override
  public long getTotalValueCount() {
    return valueCount;
  }

  @Override
  public DataPage readPage() {
    try {
      while (true) {
        PageHeader header = pending;
        pending = null;
        if (header == null) {
          if (in.available() == 0) {
            return null;
          }
          header = Util.readPageHeader(in);
        }
        if (header.getType() == PageType.DATA_PAGE) {
          DataPageHeader h = header.getData_page_header();
          byte[] bytes = body(header);
          return new DataPageV1(
              BytesInput.from(bytes),
              h.getNum_values(),
              bytes.length,
              Statistics.noopStats(column.getPrimitiveType()),
              encoding(h.getRepetition_level_encoding()),
              encoding(h.getDefinition_level_encoding()),
              encoding(h.getEncoding()));
        }
        if (header.getType() == PageType.DATA_PAGE_V2) {
          return pageV2(header);
        }
        // Index pages, and dictionary pages after the first page, carry nothing to decode here.
        skip(header.getCompressed_page_size());
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(
          "Cannot read a page of column " + String.join(".", column.getPath()), e);
    }
  }

  private DataPage pageV2(PageHeader header) throws IOException {
    DataPageHeaderV2 h = header.getData_page_header_v2();
    int rl = h.getRepetition_levels_byte_length();
    int dl = h.getDefinition_levels_byte_length();
    int compressed = header.getCompressed_page_size() - rl - dl;
    int uncompressed = header.getUncompressed_page_size() - rl - dl;
    if (rl < 0 || dl < 0 || compressed < 0 || uncompressed < 0) {
      throw new IOException("page header has inconsistent level lengths");
    }
    byte[] rlBytes = in.readNBytes(rl);
    byte[] dlBytes = in.readNBytes(dl);
    byte[] data = in.readNBytes(compressed);
    if (rlBytes.length != rl || dlBytes.length != dl || data.length != compressed) {
      throw new IOException("the column chunk ends inside a page");
    }
    // Levels are never compressed in a V2 page; the values are unless is_compressed is false.
    if (!h.isSetIs_compressed() || h.isIs_compressed()) {
      data = decompress(data, uncompressed);
    }
    return DataPageV2.uncompressed(
        h.getNum_rows(),
        h.getNum_nulls(),
        h.getNum_values(),
        BytesInput.from(rlBytes),
        BytesInput.from(dlBytes),
        encoding(h.getEncoding()),
        BytesInput.from(data),
        Statistics.noopStats(column.getPrimitiveType()));
  }

  /** Reads and decompresses the page body that follows {@code header}. */
  private byte[] body(PageHeader header) throws IOException {
    int size = header.getCompressed_page_size();
    byte[] raw = in.readNBytes(Math.max(0, size));
    if (size < 0 || raw.length != size) {
      throw new IOException("the column chunk ends inside a page");
    }
    return decompress(raw, header.getUncompressed_page_size());
  }

  private void skip(int bytes) throws IOException {
    if (bytes < 0 || in.skip(bytes) != bytes) {
      throw new IOException("the column chunk ends inside a page");
    }
  }

  private byte[] decompress(byte[] raw, int uncompressedSize) throws IOException {
    if (uncompressedSize < 0) {
      throw new IOException("negative uncompressed page size " + uncompressedSize);
    }
    byte[] out =
        switch (codec) {
          case UNCOMPRESSED -> raw;
          case SNAPPY -> Snappy.uncompress(raw);
          case ZSTD -> Zstd.decompress(raw, uncompressedSize);
          case GZIP -> {
            try (GZIPInputStream gz = new GZIPInputStream(new ByteArrayInputStream(raw))) {
              yield gz.readNBytes(uncompressedSize);
            }
          }
          default -> throw new IOException("compression codec " + codec + " is not supported");
        };
    if (out.length != uncompressedSize) {
      throw new IOException(
          "a page decompressed to "
              + out.length
              + " bytes where its header says "
              + uncompressedSize);
    }
    return out;
  }

  private static Encoding encoding(org.apache.parquet.format.Encoding e) {
    return Encoding.valueOf(e.name());
  }
}
