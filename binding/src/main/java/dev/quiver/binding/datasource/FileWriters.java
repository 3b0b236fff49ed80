package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.PendingObject;
import dev.quiver.binding.physical.scan.ScanBatches;
import dev.quiver.binding.settings.SessionConfig;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.arrow.dataset.file.DatasetFileWriter;
import org.apache.arrow.dataset.file.FileFormat;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes a stream of batches as files into a new (or empty) directory: Parquet as {@code
 * part-0.parquet, part-1.parquet, ...} (a new file every {@link #DEFAULT_PARQUET_FILE_BYTES} bytes
 * of Arrow data, so that the result can be scanned in parallel), CSV as {@code part-0.csv}; or as
 * one file (COPY ... TO). Nothing is visible before the write has succeeded: a single file appears
 * whole (a renamed hidden file, a completed multipart upload), and the files of a directory appear
 * together (see {@link #writeParquet(ArrowReader, String, SessionConfig, BufferAllocator, long)}),
 * so a failed write leaves nothing.
 */
public final class FileWriters {
  /** Arrow bytes after which the Parquet writer starts a new file. */
  public static final long DEFAULT_PARQUET_FILE_BYTES = 64L << 20;

  /**
   * Name of the schema-only Arrow IPC file written for an empty result (hidden from readers'
   * listings).
   */
  public static final String EMPTY_SCHEMA_FILE = "_empty_schema.arrow";

  private FileWriters() {}

  /**
   * Writes every batch of {@code reader} as Parquet into directory {@code dir}; returns rows
   * written.
   */
  public static long writeParquet(ArrowReader reader, Path dir, BufferAllocator allocator) {
    return writeParquet(reader, dir.toString(), null, allocator, DEFAULT_PARQUET_FILE_BYTES);
  }

  /**
   * Writes every batch of {@code reader} as Parquet into directory {@code dir}, starting a new file
   * once a file has received {@code fileBytes} bytes of Arrow data; returns rows written.
   */
  public static long writeParquet(
      ArrowReader reader, Path dir, BufferAllocator allocator, long fileBytes) {
    return writeParquet(reader, dir.toString(), null, allocator, fileBytes);
  }

  /**
   * Writes every batch of {@code reader} as Parquet files under {@code location} (a local folder or
   * {@code s3://bucket/prefix}, which must be empty), starting a new file once a file has received
   * {@code fileBytes} bytes of Arrow data; returns rows written. The files are published together
   * at the end, all or none: locally they are written into a hidden folder beside the target,
   * renamed onto it in one atomic step; in an object store every file is uploaded (multipart, not
   * yet completed) before the first is published, and a file that fails to publish takes the ones
   * published before it back ({@link ObjectStore#publishAll}). A failed write leaves nothing under
   * the location.
   */
  public static long writeParquet(
      ArrowReader reader,
      String location,
      SessionConfig config,
      BufferAllocator allocator,
      long fileBytes) {
    String root = ObjectStores.normalize(location);
    ObjectStore store = ObjectStores.forLocation(root, config);
    prepare(store, root, false);
    List<PendingObject> pending = new ArrayList<>();
    Path staging = null;
    long rows = 0;
    int fileIndex = 0;
    try {
      staging =
          store.isLocal()
              ? localStaging(Path.of(root))
              : Files.createTempDirectory("quiver-write-");
      // Locally, the finished files gather here under their final names.
      Path out = Files.createDirectories(staging.resolve("out"));
      Schema schema = reader.getVectorSchemaRoot().getSchema();
      while (true) {
        Path chunkDir = staging.resolve("chunk-" + fileIndex);
        long chunkRows;
        boolean exhausted;
        try (BufferAllocator chunkAllocator =
                allocator.newChildAllocator("parquet-write-" + fileIndex, 0, Long.MAX_VALUE);
            ChunkReader chunk = new ChunkReader(chunkAllocator, reader, schema, fileBytes)) {
          if (!chunk.hasInput() && fileIndex > 0) {
            break;
          }
          DatasetFileWriter.write(
              chunkAllocator,
              chunk,
              FileFormat.PARQUET,
              chunkDir.toUri().toString(),
              new String[0],
              1,
              "part-{i}.parquet");
          chunkRows = chunk.rows;
          exhausted = chunk.sourceExhausted;
          chunk.close();
          awaitNativeRelease(chunkAllocator);
        }
        List<Path> written = listFiles(chunkDir);
        if (written.isEmpty() && fileIndex == 0) {
          byte[] empty = emptySchema(schema, allocator);
          if (store.isLocal()) {
            Files.write(out.resolve(EMPTY_SCHEMA_FILE), empty);
          } else {
            PendingObject p = store.create(store.resolve(root, EMPTY_SCHEMA_FILE));
            pending.add(p);
            p.write(empty);
            p.close();
          }
        }
        for (Path file : written) {
          String name = "part-" + fileIndex++ + ".parquet";
          if (store.isLocal()) {
            Files.move(file, out.resolve(name), StandardCopyOption.ATOMIC_MOVE);
          } else {
            pending.add(store.upload(file, store.resolve(root, name)));
          }
        }
        deleteRecursively(chunkDir);
        rows += chunkRows;
        if (exhausted) {
          break;
        }
      }
      if (store.isLocal()) {
        publishFolder(out, Path.of(root));
      } else {
        store.publishAll(pending);
      }
    } catch (OutOfMemoryException e) {
      pending.forEach(PendingObject::abort);
      throw ScanBatches.exhausted("writing Parquet to " + root, e);
    } catch (QuiverException e) {
      pending.forEach(PendingObject::abort);
      throw e;
    } catch (IOException | RuntimeException e) {
      pending.forEach(PendingObject::abort);
      throw new DataSourceException(
          "Cannot write Parquet files to " + root + ": " + e.getMessage(), e);
    } finally {
      if (staging != null) {
        deleteRecursively(staging);
      }
    }
    return rows;
  }

  /**
   * A new hidden folder beside {@code target} (same file system, so renaming it onto the target is
   * atomic; readers of the parent skip hidden names).
   */
  private static Path localStaging(Path target) throws IOException {
    Path parent = target.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    return Files.createDirectory(
        parent.resolve(".quiver-staging-" + UUID.randomUUID() + "-" + target.getFileName()));
  }

  /**
   * Publishes the finished folder {@code out} as {@code target} (absent or an empty folder) with
   * one atomic rename, so readers see every file or none.
   */
  private static void publishFolder(Path out, Path target) {
    try {
      Files.move(out, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new DataSourceException(
          emptyOrAbsent(target)
              ? "Cannot publish the files written to " + target + ": " + e.getMessage()
              : "Cannot publish the files written to "
                  + target
                  + ": something else was written there meanwhile, so none of them was published;"
                  + " remove what is there or choose a new directory",
          e);
    }
  }

  private static boolean emptyOrAbsent(Path dir) {
    if (!Files.exists(dir)) {
      return true;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The native dataset writer may drop its references to exported batches on its own threads after
   * {@code write} returns; wait (briefly) for that so the chunk's allocator closes empty and the
   * caller's zero-bytes check after the query holds.
   */
  static void awaitNativeRelease(BufferAllocator chunkAllocator) {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (chunkAllocator.getAllocatedMemory() != 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Arrow's dataset writer writes no file for an empty stream, so an empty result is recorded as an
   * Arrow IPC file holding only the schema; {@link ParquetTable#open} reads it back as an empty
   * table.
   */
  private static byte[] emptySchema(Schema schema, BufferAllocator allocator) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (VectorSchemaRoot empty = VectorSchemaRoot.create(schema, allocator);
        ArrowFileWriter writer =
            new ArrowFileWriter(empty, null, java.nio.channels.Channels.newChannel(bytes))) {
      writer.start();
      writer.end();
    }
    return bytes.toByteArray();
  }

  /**
   * Writes every batch of {@code reader} as CSV with a header into directory {@code dir}; returns
   * rows written.
   */
  public static long writeCsv(ArrowReader reader, Path dir) {
    return writeCsv(reader, dir.toString(), null, ',');
  }

  /**
   * Writes every batch of {@code reader} as CSV with a header and {@code delimiter}; returns rows
   * written.
   */
  public static long writeCsv(ArrowReader reader, Path dir, char delimiter) {
    return writeCsv(reader, dir.toString(), null, delimiter);
  }

  /**
   * Writes every batch of {@code reader} as one CSV file {@code part-0.csv} with a header and
   * {@code delimiter} under {@code location} (a local folder or {@code s3://bucket/prefix}, which
   * must be empty); the file appears only once complete. Returns rows written.
   */
  public static long writeCsv(
      ArrowReader reader, String location, SessionConfig config, char delimiter) {
    String root = ObjectStores.normalize(location);
    ObjectStore store = ObjectStores.forLocation(root, config);
    prepare(store, root, true);
    return writeCsvObject(reader, store, store.resolve(root, "part-0.csv"), delimiter, true);
  }

  private static long writeCsvObject(
      ArrowReader reader, ObjectStore store, String file, char delimiter, boolean header) {
    PendingObject pending = store.create(file);
    long rows = 0;
    try (Writer out =
        new BufferedWriter(
            new java.io.OutputStreamWriter(pending, StandardCharsets.UTF_8), 1 << 16)) {
      VectorSchemaRoot root0 = reader.getVectorSchemaRoot();
      if (header) {
        out.write(CsvFormat.header(root0.getSchema(), delimiter));
        out.write('\n');
      }
      StringBuilder line = new StringBuilder(256);
      while (reader.loadNextBatch()) {
        List<FieldVector> vectors = root0.getFieldVectors();
        CsvFormat.ValueWriter[] writers = new CsvFormat.ValueWriter[vectors.size()];
        for (int c = 0; c < writers.length; c++) {
          writers[c] = CsvFormat.writer(vectors.get(c), delimiter);
        }
        int n = root0.getRowCount();
        for (int r = 0; r < n; r++) {
          line.setLength(0);
          for (int c = 0; c < writers.length; c++) {
            if (c > 0) {
              line.append(delimiter);
            }
            writers[c].append(line, r);
          }
          line.append('\n');
          out.append(line);
        }
        rows += n;
      }
      out.flush();
    } catch (QuiverException e) {
      pending.abort();
      throw e;
    } catch (IOException | RuntimeException e) {
      pending.abort();
      throw new DataSourceException("Cannot write CSV file " + file + ": " + e.getMessage(), e);
    }
    pending.commit();
    return rows;
  }

  /**
   * Writes every batch of {@code reader} as one Parquet file at {@code location} (a local path or
   * {@code s3://bucket/key}), replacing what is there; the file appears only once complete (COPY
   * ... TO 'file.parquet'). Returns rows written.
   */
  public static long writeParquetFile(
      ArrowReader reader, String location, SessionConfig config, BufferAllocator allocator) {
    String target = ObjectStores.normalize(location);
    ObjectStore store = ObjectStores.forLocation(target, config);
    Path staging = null;
    PendingObject pending = null;
    try {
      staging =
          store.isLocal()
              ? Files.createDirectories(
                  Path.of(target)
                      .toAbsolutePath()
                      .resolveSibling(".quiver-staging-" + UUID.randomUUID()))
              : Files.createTempDirectory("quiver-write-");
      long rows;
      Schema schema = reader.getVectorSchemaRoot().getSchema();
      try (BufferAllocator chunkAllocator =
              allocator.newChildAllocator("parquet-file-write", 0, Long.MAX_VALUE);
          ChunkReader chunk = new ChunkReader(chunkAllocator, reader, schema, Long.MAX_VALUE)) {
        DatasetFileWriter.write(
            chunkAllocator,
            chunk,
            FileFormat.PARQUET,
            staging.toUri().toString(),
            new String[0],
            1,
            "part-{i}.parquet");
        rows = chunk.rows;
        chunk.close();
        awaitNativeRelease(chunkAllocator);
      }
      List<Path> written = listFiles(staging);
      if (written.size() != 1) {
        throw new DataSourceException(
            "Cannot write the Parquet file "
                + target
                + (written.isEmpty()
                    ? ": the result is empty and a Parquet file needs at least one row group"
                    : ": the writer produced " + written.size() + " files"));
      }
      pending = store.upload(written.get(0), target);
      pending.commit();
      return rows;
    } catch (OutOfMemoryException e) {
      abort(pending);
      throw ScanBatches.exhausted("writing Parquet to " + target, e);
    } catch (QuiverException e) {
      abort(pending);
      throw e;
    } catch (IOException | RuntimeException e) {
      abort(pending);
      throw new DataSourceException(
          "Cannot write the Parquet file " + target + ": " + e.getMessage(), e);
    } finally {
      if (staging != null) {
        deleteRecursively(staging);
      }
    }
  }

  private static void abort(PendingObject pending) {
    if (pending != null) {
      pending.abort();
    }
  }

  /**
   * Writes every batch of {@code reader} as one CSV file at {@code location}, replacing what is
   * there, with a header line unless {@code header} is false; the file appears only once complete.
   * Returns rows written.
   */
  public static long writeCsvFile(
      ArrowReader reader, String location, SessionConfig config, char delimiter, boolean header) {
    String target = ObjectStores.normalize(location);
    ObjectStore store = ObjectStores.forLocation(target, config);
    if (store.isLocal()) {
      try {
        Path parent = Path.of(target).toAbsolutePath().getParent();
        if (parent != null) {
          Files.createDirectories(parent);
        }
      } catch (IOException e) {
        throw new DataSourceException(
            "Cannot create the folder of " + target + ": " + e.getMessage(), e);
      }
    }
    return writeCsvObject(reader, store, target, delimiter, header);
  }

  /**
   * Checks that {@code root} can take a new table: empty or absent (and then created, when local
   * and {@code create}).
   */
  private static void prepare(ObjectStore store, String root, boolean create) {
    if (store.isLocal()) {
      prepareDirectory(Path.of(root), create);
    } else if (!store.isEmpty(root)) {
      throw new DataSourceException(
          "Output location "
              + root
              + " is not empty; remove the objects under it or choose a new prefix");
    }
  }

  private static void prepareDirectory(Path dir, boolean create) {
    try {
      if (Files.exists(dir)) {
        if (!Files.isDirectory(dir)) {
          throw new DataSourceException("Output path " + dir + " is a file; give a directory path");
        }
        try (Stream<Path> entries = Files.list(dir)) {
          if (entries.findAny().isPresent()) {
            throw new DataSourceException(
                "Output directory "
                    + dir
                    + " is not empty; remove its contents or choose a new directory");
          }
        }
      }
      if (create) {
        Files.createDirectories(dir);
      }
    } catch (IOException e) {
      throw new DataSourceException(
          "Cannot create output directory " + dir + ": " + e.getMessage(), e);
    }
  }

  private static List<Path> listFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(Files::isRegularFile)
          .sorted(
              (a, b) -> {
                String x = a.getFileName().toString();
                String y = b.getFileName().toString();
                return x.length() != y.length()
                    ? Integer.compare(x.length(), y.length())
                    : x.compareTo(y);
              })
          .toList();
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new DataSourceException(
          "Cannot remove staging directory " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Passes batches of a source reader through until about {@code maxBytes} bytes have gone by. */
  private static final class ChunkReader extends ArrowReader {
    private final ArrowReader source;
    private final Schema schema;
    private final long maxBytes;
    private long bytes;
    long rows;
    boolean sourceExhausted;
    private boolean started;
    private VectorSchemaRoot pending;

    ChunkReader(BufferAllocator allocator, ArrowReader source, Schema schema, long maxBytes)
        throws IOException {
      super(allocator);
      this.source = source;
      this.schema = schema;
      this.maxBytes = maxBytes;
      // Peek one batch so that an exhausted source does not produce another empty file.
      if (source.loadNextBatch()) {
        pending = source.getVectorSchemaRoot();
      } else {
        sourceExhausted = true;
      }
    }

    boolean hasInput() {
      return pending != null;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      if (started && (bytes >= maxBytes || sourceExhausted)) {
        return false;
      }
      started = true;
      if (pending == null) {
        if (sourceExhausted || !source.loadNextBatch()) {
          sourceExhausted = true;
          return false;
        }
        pending = source.getVectorSchemaRoot();
      }
      VectorSchemaRoot target = getVectorSchemaRoot();
      List<FieldVector> from = pending.getFieldVectors();
      for (int i = 0; i < from.size(); i++) {
        from.get(i).makeTransferPair(target.getVector(i)).transfer();
      }
      target.setRowCount(pending.getRowCount());
      rows += pending.getRowCount();
      bytes += ScanBatches.bufferBytes(target);
      pending = null;
      return true;
    }

    @Override
    public long bytesRead() {
      return bytes;
    }

    @Override
    protected void closeReadSource() {}

    @Override
    protected Schema readSchema() {
      return schema;
    }
  }
}
