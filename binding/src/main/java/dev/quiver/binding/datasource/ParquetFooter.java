package dev.quiver.binding.datasource;

import dev.quiver.binding.DataSourceException;
import dev.quiver.binding.physical.scan.ParquetFooterBytes;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * What Quiver needs from a Parquet file's footer: total rows and, per row group, rows and sizes.
 * Reads the Thrift compact encoding of {@code FileMetaData} directly, skipping every field it does
 * not need, so no Parquet or Hadoop library is required.
 */
record ParquetFooter(long fileBytes, long numRows, List<RowGroup> rowGroups) {
  /** One row group: its rows, its uncompressed size, its size on disk and its column chunks. */
  record RowGroup(
      long numRows, long uncompressedBytes, long compressedBytes, List<ColumnChunk> columns) {

    /** The chunk of the column at dotted path {@code path}, or null when absent. */
    ColumnChunk column(String path) {
      for (ColumnChunk c : columns) {
        if (c.path().equals(path)) {
          return c;
        }
      }
      return null;
    }
  }

  /** Parquet physical types (the Thrift {@code Type} enum). */
  static final int BOOLEAN = 0;

  static final int INT32 = 1;
  static final int INT64 = 2;
  static final int INT96 = 3;
  static final int FLOAT = 4;
  static final int DOUBLE = 5;
  static final int BYTE_ARRAY = 6;
  static final int FIXED_LEN_BYTE_ARRAY = 7;

  /**
   * One column chunk's statistics.
   *
   * @param path the column's dotted path in the schema
   * @param physicalType the Parquet physical type, or -1 when unknown
   * @param min the encoded minimum, or null when unknown
   * @param max the encoded maximum, or null when unknown
   * @param nullCount nulls in the chunk, or -1 when unknown
   */
  record ColumnChunk(String path, int physicalType, byte[] min, byte[] max, long nullCount) {}

  /** Uncompressed bytes of all row groups. */
  long uncompressedBytes() {
    return rowGroups.stream().mapToLong(RowGroup::uncompressedBytes).sum();
  }

  /**
   * Reads the footer of {@code file}; throws {@link DataSourceException} naming the file when it is
   * not valid Parquet.
   */
  static ParquetFooter read(Path file) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      byte[] footer = ParquetFooterBytes.read(ch, file);
      try {
        return parse(ch.size(), new Compact(footer));
      } catch (RuntimeException e) {
        throw ParquetFooterBytes.corrupt(
            file, "its footer cannot be decoded (" + e.getMessage() + ")");
      }
    } catch (IOException e) {
      throw new DataSourceException("Cannot read Parquet file " + file + ": " + e.getMessage(), e);
    }
  }

  private static ParquetFooter parse(long fileBytes, Compact in) {
    long numRows = -1;
    List<RowGroup> groups = new ArrayList<>();
    short id = 0;
    while (true) {
      int header = in.u8();
      int type = header & 0x0F;
      if (type == Compact.STOP) {
        break;
      }
      id = in.fieldId(header, id);
      if (id == 3 && type == Compact.I64) {
        numRows = in.varLong();
      } else if (id == 4 && type == Compact.LIST) {
        int[] list = in.listHeader();
        for (int i = 0; i < list[0]; i++) {
          groups.add(parseRowGroup(in));
        }
      } else {
        in.skip(type);
      }
    }
    if (numRows < 0) {
      throw new IllegalStateException("the row count is missing");
    }
    return new ParquetFooter(fileBytes, numRows, List.copyOf(groups));
  }

  private static RowGroup parseRowGroup(Compact in) {
    long rows = 0;
    long bytes = 0;
    long compressed = -1;
    long columnsCompressed = 0;
    List<ColumnChunk> columns = new ArrayList<>();
    short id = 0;
    while (true) {
      int header = in.u8();
      int type = header & 0x0F;
      if (type == Compact.STOP) {
        break;
      }
      id = in.fieldId(header, id);
      if (id == 1 && type == Compact.LIST) {
        int[] list = in.listHeader();
        for (int i = 0; i < list[0]; i++) {
          ChunkReader chunk = parseColumnChunk(in);
          columnsCompressed += chunk.compressed;
          columns.add(chunk.toColumnChunk());
        }
      } else if (id == 2 && type == Compact.I64) {
        bytes = in.varLong();
      } else if (id == 3 && type == Compact.I64) {
        rows = in.varLong();
      } else if (id == 6 && type == Compact.I64) {
        compressed = in.varLong();
      } else {
        in.skip(type);
      }
    }
    return new RowGroup(
        rows, bytes, compressed >= 0 ? compressed : columnsCompressed, List.copyOf(columns));
  }

  /** What one ColumnChunk's metadata holds while it is being read. */
  private static final class ChunkReader {
    long compressed;
    int type = -1;
    String path = "";
    byte[] minValue;
    byte[] maxValue;
    byte[] legacyMin;
    byte[] legacyMax;
    long nullCount = -1;

    ColumnChunk toColumnChunk() {
      byte[] min = minValue;
      byte[] max = maxValue;
      // The deprecated min/max use signed order, which is only right for signed numeric types.
      if ((min == null || max == null)
          && (type == INT32 || type == INT64 || type == FLOAT || type == DOUBLE)) {
        min = legacyMin;
        max = legacyMax;
      }
      if (min == null || max == null) {
        min = null;
        max = null;
      }
      return new ColumnChunk(path, type, min, max, nullCount);
    }
  }

  /** Reads a ColumnChunk: its compressed size, type, path and statistics. */
  private static ChunkReader parseColumnChunk(Compact in) {
    ChunkReader chunk = new ChunkReader();
    short id = 0;
    while (true) {
      int header = in.u8();
      int type = header & 0x0F;
      if (type == Compact.STOP) {
        return chunk;
      }
      id = in.fieldId(header, id);
      if (id == 3 && type == Compact.STRUCT) {
        parseColumnMetaData(in, chunk);
      } else {
        in.skip(type);
      }
    }
  }

  private static void parseColumnMetaData(Compact in, ChunkReader chunk) {
    short id = 0;
    while (true) {
      int h = in.u8();
      int t = h & 0x0F;
      if (t == Compact.STOP) {
        return;
      }
      id = in.fieldId(h, id);
      if (id == 1 && t == Compact.I32) {
        chunk.type = (int) in.varLong();
      } else if (id == 3 && t == Compact.LIST) {
        int[] list = in.listHeader();
        StringBuilder path = new StringBuilder();
        for (int i = 0; i < list[0]; i++) {
          if (list[1] != Compact.BINARY) {
            in.skip(list[1]);
            continue;
          }
          if (i > 0) {
            path.append('.');
          }
          path.append(new String(in.binary(), StandardCharsets.UTF_8));
        }
        chunk.path = path.toString();
      } else if (id == 7 && t == Compact.I64) {
        chunk.compressed = in.varLong();
      } else if (id == 12 && t == Compact.STRUCT) {
        parseStatistics(in, chunk);
      } else {
        in.skip(t);
      }
    }
  }

  private static void parseStatistics(Compact in, ChunkReader chunk) {
    short id = 0;
    while (true) {
      int h = in.u8();
      int t = h & 0x0F;
      if (t == Compact.STOP) {
        return;
      }
      id = in.fieldId(h, id);
      if (t == Compact.BINARY && id == 1) {
        chunk.legacyMax = in.binary();
      } else if (t == Compact.BINARY && id == 2) {
        chunk.legacyMin = in.binary();
      } else if (t == Compact.BINARY && id == 5) {
        chunk.maxValue = in.binary();
      } else if (t == Compact.BINARY && id == 6) {
        chunk.minValue = in.binary();
      } else if (t == Compact.I64 && id == 3) {
        chunk.nullCount = in.varLong();
      } else {
        in.skip(t);
      }
    }
  }

  /** A cursor over Thrift compact-protocol bytes. */
  private static final class Compact {
    static final int STOP = 0;
    static final int TRUE = 1;
    static final int FALSE = 2;
    static final int BYTE = 3;
    static final int I16 = 4;
    static final int I32 = 5;
    static final int I64 = 6;
    static final int DOUBLE = 7;
    static final int BINARY = 8;
    static final int LIST = 9;
    static final int SET = 10;
    static final int MAP = 11;
    static final int STRUCT = 12;

    private final byte[] bytes;
    private int pos;
    private int depth;

    Compact(byte[] bytes) {
      this.bytes = bytes;
    }

    int u8() {
      if (pos >= bytes.length) {
        throw new IllegalStateException("truncated at byte " + pos);
      }
      return bytes[pos++] & 0xFF;
    }

    long rawVarint() {
      long result = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int b = u8();
        result |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return result;
        }
      }
      throw new IllegalStateException("varint too long at byte " + pos);
    }

    long varLong() {
      long v = rawVarint();
      return (v >>> 1) ^ -(v & 1);
    }

    short fieldId(int header, short last) {
      int delta = header >>> 4;
      return delta == 0 ? (short) varLong() : (short) (last + delta);
    }

    byte[] binary() {
      long len = rawVarint();
      if (len < 0 || pos + len > bytes.length) {
        throw new IllegalStateException("bad binary length " + len);
      }
      byte[] out = java.util.Arrays.copyOfRange(bytes, pos, pos + (int) len);
      pos += (int) len;
      return out;
    }

    /** Returns {size, elementType}. */
    int[] listHeader() {
      int h = u8();
      int size = h >>> 4;
      if (size == 15) {
        size = (int) rawVarint();
      }
      if (size < 0 || size > bytes.length) {
        throw new IllegalStateException("bad list size " + size);
      }
      return new int[] {size, h & 0x0F};
    }

    void skip(int type) {
      if (++depth > 64) {
        throw new IllegalStateException("nesting too deep");
      }
      switch (type) {
        case TRUE, FALSE -> {}
        case BYTE -> pos++;
        case I16, I32, I64 -> rawVarint();
        case DOUBLE -> pos += 8;
        case BINARY -> {
          long len = rawVarint();
          if (len < 0 || pos + len > bytes.length) {
            throw new IllegalStateException("bad binary length " + len);
          }
          pos += (int) len;
        }
        case LIST, SET -> {
          int[] list = listHeader();
          for (int i = 0; i < list[0]; i++) {
            // Booleans inside collections take one byte each.
            if (list[1] == TRUE || list[1] == FALSE) {
              pos++;
            } else {
              skip(list[1]);
            }
          }
        }
        case MAP -> {
          int size = (int) rawVarint();
          if (size > 0) {
            int kv = u8();
            for (int i = 0; i < size; i++) {
              skip(kv >>> 4);
              skip(kv & 0x0F);
            }
          }
        }
        case STRUCT -> {
          short id = 0;
          while (true) {
            int h = u8();
            int t = h & 0x0F;
            if (t == STOP) {
              break;
            }
            id = fieldId(h, id);
            skip(t);
          }
        }
        default ->
            throw new IllegalStateException("unknown Thrift type " + type + " at byte " + pos);
      }
      depth--;
      if (pos > bytes.length) {
        throw new IllegalStateException("truncated");
      }
    }
  }
}
