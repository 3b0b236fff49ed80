package dev.quiver.iceberg.io;

import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.io.ObjectReader;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.PendingObject;
import dev.quiver.binding.io.StoredObject;
import dev.quiver.binding.settings.SessionConfig;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Iceberg's file access over Quiver's {@link ObjectStore}s: local paths, {@code file:} URIs and
 * {@code s3://}, with the S3 settings ({@code quiver.s3.*}) of the session that opened the table,
 * so that metadata, manifests and data are reached with the same credentials and no Hadoop.
 */
public final class QuiverFileIO implements FileIO {
  private SessionConfig config;

  /** A FileIO reaching stores with {@code config}'s settings (null: the environment's). */
  public QuiverFileIO(SessionConfig config) {
    this.config = config == null ? null : config.copy();
  }

  /** For Iceberg's {@code io-impl} catalog property: the settings come from {@link #initialize}. */
  public QuiverFileIO() {
    this(null);
  }

  /**
   * Takes Iceberg's S3 properties ({@code s3.endpoint}, {@code s3.access-key-id}, {@code
   * s3.secret-access-key}, {@code s3.session-token}, {@code s3.path-style-access}, {@code
   * client.region}) as the {@code quiver.s3.*} settings, over any given at construction.
   */
  @Override
  public void initialize(Map<String, String> properties) {
    SessionConfig c = config == null ? new SessionConfig() : config.copy();
    map(properties, c, "s3.endpoint", SessionConfig.S3_ENDPOINT);
    map(properties, c, "s3.access-key-id", SessionConfig.S3_ACCESS_KEY_ID);
    map(properties, c, "s3.secret-access-key", SessionConfig.S3_SECRET_ACCESS_KEY);
    map(properties, c, "s3.session-token", SessionConfig.S3_SESSION_TOKEN);
    map(properties, c, "s3.path-style-access", SessionConfig.S3_PATH_STYLE);
    map(properties, c, "client.region", SessionConfig.S3_REGION);
    this.config = c;
  }

  private static void map(Map<String, String> from, SessionConfig to, String key, String setting) {
    String v = from.get(key);
    if (v != null && !v.isBlank()) {
      to.set(setting, v);
    }
  }

  /** The settings stores are reached with (may be null). */
  public SessionConfig config() {
    return config;
  }

  /** The store and store-form location of {@code location} (an Iceberg path). */
  static ObjectStore store(String location, SessionConfig config) {
    return ObjectStores.forLocation(storeLocation(location), config);
  }

  /**
   * {@code location} as Quiver's stores name it: {@code s3a://} and {@code s3n://} read as {@code
   * s3://}, {@code file:} URIs as local paths.
   */
  public static String storeLocation(String location) {
    String l = location;
    if (l.startsWith("s3a://") || l.startsWith("s3n://")) {
      l = "s3://" + l.substring(6);
    }
    return ObjectStores.normalize(l);
  }

  @Override
  public InputFile newInputFile(String path) {
    return new StoreInputFile(path, -1);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return new StoreInputFile(path, length);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return new StoreOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    String l = storeLocation(path);
    ObjectStores.forLocation(l, config).delete(l);
  }

  /**
   * The objects below folder {@code location} (recursively), as stores name them; none when there
   * is nothing there.
   */
  public List<String> listBelow(String location) {
    String l = storeLocation(location);
    ObjectStore s = ObjectStores.forLocation(l, config);
    if (s.isEmpty(l)) {
      return List.of();
    }
    return s.list(l).stream().map(StoredObject::location).toList();
  }

  @Override
  public Map<String, String> properties() {
    return Map.of();
  }

  /** Reads an object through ranged reads of a cached reader. */
  private final class StoreInputFile implements InputFile {
    private final String location;
    private long length;

    StoreInputFile(String location, long length) {
      this.location = location;
      this.length = length;
    }

    @Override
    public long getLength() {
      if (length < 0) {
        String l = storeLocation(location);
        try (ObjectReader r = ObjectStores.forLocation(l, config).open(l, -1)) {
          length = r.size();
        } catch (ObjectStoreException e) {
          throw notFound(e);
        }
      }
      return length;
    }

    @Override
    public SeekableInputStream newStream() {
      String l = storeLocation(location);
      try {
        return new StoreInputStream(ObjectStores.forLocation(l, config).open(l, length));
      } catch (ObjectStoreException e) {
        throw notFound(e);
      }
    }

    private RuntimeException notFound(ObjectStoreException e) {
      return e.reason() == ObjectStoreException.Reason.NOT_FOUND
          ? new NotFoundException(e, "File does not exist: %s", location)
          : e;
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public boolean exists() {
      String l = storeLocation(location);
      try {
        return !ObjectStores.forLocation(l, config).list(l).isEmpty();
      } catch (ObjectStoreException e) {
        if (e.reason() == ObjectStoreException.Reason.NOT_FOUND) {
          return false;
        }
        throw e;
      }
    }
  }

  /** Writes an object that becomes visible, whole, when the stream is closed. */
  private final class StoreOutputFile implements OutputFile {
    private final String location;

    StoreOutputFile(String location) {
      this.location = location;
    }

    @Override
    public PositionOutputStream create() {
      if (toInputFile().exists()) {
        throw new AlreadyExistsException("File already exists: %s", location);
      }
      return createOrOverwrite();
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      String l = storeLocation(location);
      return new StoreOutputStream(ObjectStores.forLocation(l, config).create(l));
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public InputFile toInputFile() {
      return new StoreInputFile(location, -1);
    }
  }

  /** Buffered sequential reads with seeks, over ranged reads of the object. */
  private static final class StoreInputStream extends SeekableInputStream {
    private static final int BLOCK = 1 << 20;
    private final ObjectReader reader;
    private final long size;
    private long pos;
    private byte[] block = new byte[0];
    private long blockStart;
    private boolean closed;

    StoreInputStream(ObjectReader reader) {
      this.reader = reader;
      this.size = reader.size();
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) throws IOException {
      if (newPos < 0) {
        throw new IOException("Cannot seek to " + newPos + " in " + reader.location());
      }
      pos = newPos;
    }

    private boolean fill() {
      if (pos >= size) {
        return false;
      }
      if (pos < blockStart || pos >= blockStart + block.length) {
        int n = (int) Math.min(BLOCK, size - pos);
        block = reader.read(pos, n);
        blockStart = pos;
      }
      return true;
    }

    @Override
    public int read() throws IOException {
      check();
      if (!fill()) {
        return -1;
      }
      return block[(int) (pos++ - blockStart)] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      check();
      if (len == 0) {
        return 0;
      }
      if (!fill()) {
        return -1;
      }
      int offset = (int) (pos - blockStart);
      int n = Math.min(len, block.length - offset);
      System.arraycopy(block, offset, b, off, n);
      pos += n;
      return n;
    }

    @Override
    public long skip(long n) {
      long skipped = Math.max(0, Math.min(n, size - pos));
      pos += skipped;
      return skipped;
    }

    @Override
    public int available() {
      return (int) Math.min(Integer.MAX_VALUE, Math.max(0, size - pos));
    }

    private void check() throws IOException {
      if (closed) {
        throw new IOException("Stream of " + reader.location() + " is closed");
      }
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        reader.close();
      }
    }
  }

  /** Counts bytes into a pending object and publishes it on close. */
  private static final class StoreOutputStream extends PositionOutputStream {
    private final PendingObject target;
    private long pos;
    private boolean closed;

    StoreOutputStream(PendingObject target) {
      this.target = target;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void write(int b) throws IOException {
      target.write(b);
      pos++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      target.write(b, off, len);
      pos += len;
    }

    @Override
    public void flush() throws IOException {
      target.flush();
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        target.close();
        target.commit();
      } catch (IOException | RuntimeException e) {
        target.abort();
        throw e;
      }
    }
  }
}
