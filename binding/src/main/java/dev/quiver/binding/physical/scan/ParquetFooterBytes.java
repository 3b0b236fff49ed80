package dev.quiver.binding.physical.scan;

import dev.quiver.binding.DataSourceException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;

/** Locates, reads and decodes the Thrift-encoded footer of a Parquet file, checking its framing. */
public final class ParquetFooterBytes {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  private ParquetFooterBytes() {}

  /**
   * The footer's bytes; throws {@link DataSourceException} naming {@code file} when the file is
   * too short, lacks the magic bytes at either end, or has a footer length that does not fit.
   */
  public static byte[] read(FileChannel ch, Path file) throws IOException {
    long size = ch.size();
    if (size < 12) {
      throw corrupt(file, "it is only " + size + " bytes long, too short for Parquet");
    }
    ByteBuffer tail = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    readFully(ch, tail, size - 8);
    ByteBuffer head = ByteBuffer.allocate(4);
    readFully(ch, head, 0);
    if (!hasMagic(tail.array(), 4) || !hasMagic(head.array(), 0)) {
      throw corrupt(file, "it does not start and end with the Parquet magic bytes 'PAR1'");
    }
    int footerLength = tail.getInt(0);
    if (footerLength <= 0 || footerLength > size - 12) {
      throw corrupt(file, "its footer length " + footerLength + " does not fit in the file");
    }
    ByteBuffer footer = ByteBuffer.allocate(footerLength);
    readFully(ch, footer, size - 8 - footerLength);
    return footer.array();
  }

  /** The decoded footer; throws {@link DataSourceException} when it is not valid Parquet. */
  public static FileMetaData readMetadata(FileChannel ch, Path file) throws IOException {
    byte[] footer = read(ch, file);
    try {
      return Util.readFileMetaData(new ByteArrayInputStream(footer));
    } catch (IOException | RuntimeException e) {
      throw corrupt(file, "its footer cannot be decoded (" + e.getMessage() + ")");
    }
  }

  /** The error for a file that is not valid Parquet, saying why. */
  public static DataSourceException corrupt(Path file, String why) {
    return new DataSourceException(
        "File "
            + file
            + " is not a valid Parquet file: "
            + why
            + "; check that it was fully written");
  }

  /** Fills {@code buf} from {@code position}; fails at end of file. */
  static void readFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
    long pos = position;
    while (buf.hasRemaining()) {
      int n = ch.read(buf, pos);
      if (n < 0) {
        throw new IOException("unexpected end of file");
      }
      pos += n;
    }
  }

  private static boolean hasMagic(byte[] bytes, int at) {
    for (int i = 0; i < 4; i++) {
      if (bytes[at + i] != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }
}
