package dev.quiver.binding.physical.kernel;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Unchecked access to Arrow buffer memory for hot loops. {@link ArrowBuf}'s accessors check the
 * reference count (a volatile read) and the bounds on every element, which keeps the JIT from
 * unrolling or hoisting; here the caller checks the whole range once with {@link #address} and then
 * reads and writes by address.
 */
public final class Raw {
  private Raw() {}

  /**
   * The address of {@code buf}'s first byte after checking that {@code bytes} bytes are accessible;
   * throws {@link IndexOutOfBoundsException} otherwise.
   */
  public static long address(ArrowBuf buf, long bytes) {
    if (bytes <= 0) {
      return 0;
    }
    if (buf == null || buf.capacity() < bytes || buf.refCnt() <= 0) {
      throw new IndexOutOfBoundsException(
          "buffer of "
              + (buf == null ? 0 : buf.capacity())
              + " bytes cannot hold the "
              + bytes
              + " bytes a kernel accesses");
    }
    return buf.memoryAddress();
  }

  /** The long at {@code address}. */
  public static long getLong(long address) {
    return MemoryUtil.getLong(address);
  }

  /** The int at {@code address}. */
  public static int getInt(long address) {
    return MemoryUtil.getInt(address);
  }

  /** The byte at {@code address}. */
  public static byte getByte(long address) {
    return MemoryUtil.getByte(address);
  }

  /** Stores a long at {@code address}. */
  public static void putLong(long address, long value) {
    MemoryUtil.putLong(address, value);
  }

  /** Stores an int at {@code address}. */
  public static void putInt(long address, int value) {
    MemoryUtil.putInt(address, value);
  }

  /** Stores a short at {@code address}. */
  public static void putShort(long address, short value) {
    MemoryUtil.putShort(address, value);
  }

  /** Stores a byte at {@code address}. */
  public static void putByte(long address, byte value) {
    MemoryUtil.putByte(address, value);
  }

  /** Whether bit {@code i} of the bitmap at {@code address} is set. */
  public static boolean bit(long address, int i) {
    return ((MemoryUtil.getByte(address + (i >>> 3)) >> (i & 7)) & 1) != 0;
  }

  /** Sets bit {@code i} of the bitmap at {@code address}. */
  public static void setBit(long address, int i) {
    long a = address + (i >>> 3);
    MemoryUtil.putByte(a, (byte) (MemoryUtil.getByte(a) | (1 << (i & 7))));
  }

  /**
   * Sets bits {@code [from, from + n)} of the bitmap at {@code address}: whole bytes at once, so
   * marking a run of valid rows costs a byte fill instead of a read-modify-write per row.
   */
  public static void setBits(long address, int from, int n) {
    int end = from + n;
    int i = from;
    while (i < end && (i & 7) != 0) {
      setBit(address, i++);
    }
    int wholeBytes = (end - i) >>> 3;
    if (wholeBytes > 0) {
      MemoryUtil.setMemory(address + (i >>> 3), wholeBytes, (byte) -1);
      i += wholeBytes << 3;
    }
    while (i < end) {
      setBit(address, i++);
    }
  }

  /** Copies {@code length} bytes of {@code src} from {@code offset} to {@code address}. */
  public static void copy(byte[] src, int offset, long address, int length) {
    if (length > 0) {
      MemoryUtil.copyToMemory(src, offset, address, length);
    }
  }

  /** Copies {@code bytes} bytes between addresses. */
  public static void copy(long from, long to, long bytes) {
    if (bytes > 0) {
      MemoryUtil.copyMemory(from, to, bytes);
    }
  }
}
