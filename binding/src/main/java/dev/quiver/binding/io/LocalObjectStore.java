package dev.quiver.binding.io;

import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.errors.ObjectStoreException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The local file system. Locations are absolute paths ({@code file://} URIs and relative paths are
 * normalized by {@link ObjectStores}); a pending object is a hidden file beside its target, moved
 * into place atomically on commit.
 */
public final class LocalObjectStore implements ObjectStore {
  /** The one instance: the store has no state. */
  public static final LocalObjectStore INSTANCE = new LocalObjectStore();

  private LocalObjectStore() {}

  /** The normalized absolute path of a bare path or {@code file://} URI. */
  public static Path toPath(String location) {
    String p = location.startsWith("file://") ? location.substring("file://".length()) : location;
    if (p.startsWith("file:")) {
      p = p.substring("file:".length());
    }
    return Path.of(p).toAbsolutePath().normalize();
  }

  @Override
  public List<StoredObject> list(String location) {
    Path root = LocalFileAccess.check(toPath(location));
    if (!Files.exists(root)) {
      throw new ObjectStoreException(
          Reason.NOT_FOUND,
          "Path "
              + root
              + " does not exist; check the path (relative paths resolve against "
              + Path.of("").toAbsolutePath()
              + ")");
    }
    if (!Files.isReadable(root)) {
      throw new ObjectStoreException(
          Reason.ACCESS_DENIED, "Path " + root + " is not readable; check its permissions");
    }
    try {
      if (Files.isRegularFile(root)) {
        return List.of(new StoredObject(root.toString(), Files.size(root)));
      }
      List<StoredObject> found = new ArrayList<>();
      try (Stream<Path> walk = Files.walk(root)) {
        for (Path p :
            walk.filter(Files::isRegularFile)
                .filter(f -> !LocalFileAccess.hidden(f))
                .sorted()
                .toList()) {
          found.add(new StoredObject(p.toString(), Files.size(p)));
        }
      }
      return found;
    } catch (IOException | UncheckedIOException e) {
      throw new ObjectStoreException(
          Reason.OTHER, "Cannot list directory " + root + ": " + e.getMessage(), e);
    }
  }

  @Override
  public boolean isEmpty(String location) {
    Path p = LocalFileAccess.check(toPath(location));
    if (!Files.exists(p)) {
      return true;
    }
    if (!Files.isDirectory(p)) {
      return false;
    }
    try (Stream<Path> entries = Files.list(p)) {
      return entries.findAny().isEmpty();
    } catch (IOException e) {
      throw new ObjectStoreException(
          Reason.OTHER, "Cannot list directory " + p + ": " + e.getMessage(), e);
    }
  }

  @Override
  public ObjectReader open(String location, long size, String version) {
    Path file = LocalFileAccess.check(toPath(location));
    try {
      return new FileReader(file, FileChannel.open(file, StandardOpenOption.READ));
    } catch (NoSuchFileException e) {
      throw new ObjectStoreException(
          Reason.NOT_FOUND, "Cannot open file " + file + ": it does not exist", e);
    } catch (AccessDeniedException e) {
      throw new ObjectStoreException(
          Reason.ACCESS_DENIED, "Cannot open file " + file + ": permission denied", e);
    } catch (IOException e) {
      throw new ObjectStoreException(
          Reason.OTHER, "Cannot open file " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public InputStream openStream(String location) {
    Path file = LocalFileAccess.check(toPath(location));
    try {
      return new CountingInputStream(Files.newInputStream(file));
    } catch (NoSuchFileException e) {
      throw new ObjectStoreException(
          Reason.NOT_FOUND, "Cannot open file " + file + ": it does not exist", e);
    } catch (IOException e) {
      throw new ObjectStoreException(
          Reason.OTHER, "Cannot open file " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public PendingObject create(String location) {
    Path target = LocalFileAccess.check(toPath(location));
    Path temp = pendingPath(target);
    try {
      Files.createDirectories(target.getParent());
      return new LocalPending(target, temp, Files.newOutputStream(temp));
    } catch (IOException e) {
      throw new ObjectStoreException(
          Reason.OTHER, "Cannot create file " + target + ": " + e.getMessage(), e);
    }
  }

  @Override
  public PendingObject upload(Path file, String location) {
    Path target = LocalFileAccess.check(toPath(location));
    Path temp = pendingPath(target);
    try {
      Files.createDirectories(target.getParent());
      Files.move(file, temp, StandardCopyOption.ATOMIC_MOVE);
      return new LocalPending(target, temp, null);
    } catch (IOException e) {
      throw new ObjectStoreException(
          Reason.OTHER, "Cannot write file " + target + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void delete(String location) {
    Path p = LocalFileAccess.check(toPath(location));
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      throw new ObjectStoreException(
          Reason.OTHER, "Cannot delete file " + p + ": " + e.getMessage(), e);
    }
  }

  /** A hidden name beside {@code target}, so that readers' listings skip it. */
  private static Path pendingPath(Path target) {
    return target.resolveSibling(
        ".quiver-pending-" + UUID.randomUUID() + "-" + target.getFileName());
  }

  @Override
  public String resolve(String parent, String child) {
    return toPath(parent).resolve(child).toString();
  }

  @Override
  public boolean isLocal() {
    return true;
  }

  @Override
  public String toString() {
    return "LocalObjectStore";
  }

  /** Positional reads of one file. */
  private static final class FileReader implements ObjectReader {
    private final Path file;
    private final FileChannel channel;
    private long fetched;

    FileReader(Path file, FileChannel channel) {
      this.file = file;
      this.channel = channel;
    }

    @Override
    public String location() {
      return file.toString();
    }

    @Override
    public long size() {
      try {
        return channel.size();
      } catch (IOException e) {
        throw new ObjectStoreException(
            Reason.OTHER, "Cannot read file " + file + ": " + e.getMessage(), e);
      }
    }

    @Override
    public byte[] read(long offset, int length) {
      byte[] bytes = new byte[length];
      readFully(ByteBuffer.wrap(bytes), offset, length);
      return bytes;
    }

    /** Fills {@code buf} (its remaining {@code length} bytes) from byte {@code offset} on. */
    private void readFully(ByteBuffer buf, long offset, int length) {
      long pos = offset;
      try {
        while (buf.hasRemaining()) {
          int n = channel.read(buf, pos);
          if (n < 0) {
            throw new ObjectStoreException(
                Reason.INVALID,
                "File "
                    + file
                    + " ends at byte "
                    + pos
                    + ", before the "
                    + length
                    + " bytes asked for at "
                    + offset
                    + "; was it truncated?");
          }
          pos += n;
        }
      } catch (IOException e) {
        throw new ObjectStoreException(
            Reason.OTHER, "Cannot read file " + file + ": " + e.getMessage(), e);
      }
      fetched += length;
      ObjectStores.countFetched(length);
    }

    @Override
    public List<Slice> readRanges(List<Range> ranges) {
      List<Slice> out = new ArrayList<>(ranges.size());
      for (Range r : ranges) {
        out.add(new Slice(read(r.offset(), r.length()), 0, r.length()));
      }
      return out;
    }

    @Override
    public List<Slice> readRanges(List<Range> ranges, byte[][] buffers) {
      List<Slice> out = new ArrayList<>(ranges.size());
      for (int i = 0; i < ranges.size(); i++) {
        Range r = ranges.get(i);
        byte[] b = i < buffers.length ? buffers[i] : null;
        if (b == null || b.length < r.length()) {
          // An eighth to spare, so that the next row group's slightly larger chunk fits too.
          b = new byte[(int) Math.min(Integer.MAX_VALUE - 8, r.length() + (r.length() >>> 3))];
          if (i < buffers.length) {
            buffers[i] = b;
          }
        }
        readFully(ByteBuffer.wrap(b, 0, r.length()), r.offset(), r.length());
        out.add(new Slice(b, 0, r.length()));
      }
      return out;
    }

    @Override
    public long fetchedBytes() {
      return fetched;
    }

    @Override
    public void close() {
      try {
        channel.close();
      } catch (IOException e) {
        throw new ObjectStoreException(
            Reason.OTHER, "Cannot close file " + file + ": " + e.getMessage(), e);
      }
    }
  }

  /** A hidden file renamed over its target on commit. */
  private static final class LocalPending extends PendingObject {
    private final Path target;
    private final Path temp;
    private final OutputStream out;
    private boolean closed;
    private boolean done;

    LocalPending(Path target, Path temp, OutputStream out) {
      this.target = target;
      this.temp = temp;
      this.out = out;
      this.closed = out == null;
    }

    @Override
    public String location() {
      return target.toString();
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      if (!closed) {
        out.flush();
      }
    }

    @Override
    public void close() throws IOException {
      if (!closed) {
        closed = true;
        out.close();
      }
    }

    @Override
    public void commit() {
      try {
        close();
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        done = true;
      } catch (IOException e) {
        abort();
        throw new ObjectStoreException(
            Reason.OTHER, "Cannot write file " + target + ": " + e.getMessage(), e);
      }
    }

    @Override
    public void abort() {
      if (done) {
        return;
      }
      done = true;
      try {
        close();
      } catch (IOException ignored) {
        // The write already failed; deleting the temporary file is what matters.
      }
      try {
        Files.deleteIfExists(temp);
      } catch (IOException ignored) {
        // Hidden from readers either way.
      }
    }
  }

  /** Counts the bytes read from a stream into the store-wide total. */
  static final class CountingInputStream extends java.io.FilterInputStream {
    CountingInputStream(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        ObjectStores.countFetched(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        ObjectStores.countFetched(n);
      }
      return n;
    }
  }
}
