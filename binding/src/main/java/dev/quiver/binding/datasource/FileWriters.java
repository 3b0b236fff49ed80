package dev.quiver.binding.datasource;

import dev.quiver.binding.datasource.parquet.ParquetFileWriter;
import dev.quiver.binding.datasource.parquet.ParquetWriteOptions;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.PendingObject;
import dev.quiver.binding.physical.scan.ScanBatches;
import dev.quiver.binding.settings.SessionConfig;
import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
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
    return writeParquet(reader, location, config, fileBytes, ParquetWriteOptions.DEFAULT);
  }

  /**
   * Writes every batch of {@code reader} as Parquet files laid out by {@code options} under {@code
   * location}, as {@link #writeParquet(ArrowReader, String, SessionConfig, BufferAllocator, long)}
   * does; returns rows written.
   */
  public static long writeParquet(
      ArrowReader reader,
      String location,
      SessionConfig config,
      long fileBytes,
      ParquetWriteOptions options) {
    String root = ObjectStores.normalize(location);
    ObjectStore store = ObjectStores.forLocation(root, config);
    prepare(store, root, false);
    List<PendingObject> pending = new ArrayList<>();
    Path staging = null;
    OutputStream file = null;
    long rows = 0;
    try {
      // Locally, the finished files gather in a hidden folder, renamed onto the target at the end;
      // in an object store each file is an upload published with the others at the end.
      staging = store.isLocal() ? localStaging(Path.of(root)) : null;
      Path out = staging == null ? null : Files.createDirectories(staging.resolve("out"));
      VectorSchemaRoot batch = reader.getVectorSchemaRoot();
      Schema schema = batch.getSchema();
      ParquetFileWriter writer = null;
      long arrowBytes = 0;
      int fileIndex = 0;
      while (reader.loadNextBatch()) {
        if (batch.getRowCount() == 0) {
          continue;
        }
        if (writer == null) {
          String name = "part-" + fileIndex++ + ".parquet";
          if (out != null) {
            file = new BufferedOutputStream(Files.newOutputStream(out.resolve(name)), 1 << 16);
          } else {
            PendingObject p = store.create(store.resolve(root, name));
            pending.add(p);
            file = p;
          }
          writer = new ParquetFileWriter(file, schema, options);
          arrowBytes = 0;
        }
        writer.write(batch);
        rows += batch.getRowCount();
        arrowBytes += ScanBatches.bufferBytes(batch);
        if (arrowBytes >= fileBytes) {
          writer.finish();
          file.close();
          file = null;
          writer = null;
        }
      }
      if (writer != null) {
        writer.finish();
        file.close();
        file = null;
      }
      if (fileIndex == 0) {
        byte[] empty = emptySchema(batch);
        if (out != null) {
          Files.write(out.resolve(EMPTY_SCHEMA_FILE), empty);
        } else {
          PendingObject p = store.create(store.resolve(root, EMPTY_SCHEMA_FILE));
          pending.add(p);
          p.write(empty);
          p.close();
        }
      }
      if (out != null) {
        publishFolder(out, Path.of(root));
      } else {
        store.publishAll(pending);
      }
    } catch (IOException | RuntimeException e) {
      throw writeFailed(pending, "Parquet files to " + root, e);
    } finally {
      closeQuietly(file);
      if (staging != null) {
        deleteRecursively(staging);
      }
    }
    return rows;
  }

  /**
   * Aborts the uploads of a write of {@code what} that failed with {@code e}; what to throw (memory
   * running out and Quiver's own errors keep their kind).
   */
  static RuntimeException writeFailed(List<PendingObject> pending, String what, Exception e) {
    pending.forEach(PendingObject::abort);
    if (e instanceof OutOfMemoryException oom) {
      return ScanBatches.exhausted("writing " + what, oom);
    }
    if (e instanceof QuiverException q) {
      return q;
    }
    return new DataSourceException("Cannot write " + what + ": " + e.getMessage(), e);
  }

  private static void closeQuietly(OutputStream stream) {
    if (stream != null && !(stream instanceof PendingObject)) {
      try {
        stream.close();
      } catch (IOException e) {
        // The write already failed; the staging folder holding the file is removed next.
      }
    }
  }

  /**
   * A new hidden folder beside {@code target} (same file system, so renaming it onto the target is
   * atomic; readers of the parent skip hidden names).
   */
  static Path localStaging(Path target) throws IOException {
    Path parent = target.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    return Files.createDirectory(
        parent.resolve(".quiver-staging-" + UUID.randomUUID() + "-" + target.getFileName()));
  }

  /**
   * Publishes the finished folder {@code out} as {@code target} (absent or an empty folder) with
   * one atomic rename, so readers see every file or none.
   */
  static void publishFolder(Path out, Path target) {
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

  static boolean emptyOrAbsent(Path dir) {
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
   * An empty result is recorded as an Arrow IPC file holding only the schema (a Parquet folder with
   * no file would have none); {@link ParquetTable#open} reads it back as an empty table.
   */
  private static byte[] emptySchema(VectorSchemaRoot batch) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    // Only the schema and an empty footer are written: the batch's buffers are not read.
    try (ArrowFileWriter writer =
        new ArrowFileWriter(batch, null, java.nio.channels.Channels.newChannel(bytes))) {
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
      while (reader.loadNextBatch()) {
        appendCsvLines(out, root0, delimiter);
        rows += root0.getRowCount();
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

  /** Appends the rows of {@code batch} to {@code out} as CSV lines. */
  static void appendCsvLines(Writer out, VectorSchemaRoot batch, char delimiter)
      throws IOException {
    List<FieldVector> vectors = batch.getFieldVectors();
    CsvFormat.ValueWriter[] writers = new CsvFormat.ValueWriter[vectors.size()];
    for (int c = 0; c < writers.length; c++) {
      writers[c] = CsvFormat.writer(vectors.get(c), delimiter);
    }
    StringBuilder line = new StringBuilder(256);
    int n = batch.getRowCount();
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
  }

  /**
   * Writes every batch of {@code reader} as one Parquet file at {@code location} (a local path or
   * {@code s3://bucket/key}), replacing what is there; the file appears only once complete (COPY
   * ... TO 'file.parquet'). An empty result is a file with no row group. Returns rows written.
   */
  public static long writeParquetFile(
      ArrowReader reader, String location, SessionConfig config, BufferAllocator allocator) {
    return writeParquetFile(reader, location, config, ParquetWriteOptions.DEFAULT);
  }

  /**
   * Writes every batch of {@code reader} as one Parquet file laid out by {@code options} at {@code
   * location}, as {@link #writeParquetFile(ArrowReader, String, SessionConfig, BufferAllocator)}
   * does; returns rows written.
   */
  public static long writeParquetFile(
      ArrowReader reader, String location, SessionConfig config, ParquetWriteOptions options) {
    String target = ObjectStores.normalize(location);
    ObjectStore store = ObjectStores.forLocation(target, config);
    createLocalParent(store, target);
    PendingObject pending = null;
    try {
      pending = store.create(target);
      VectorSchemaRoot batch = reader.getVectorSchemaRoot();
      long rows = 0;
      try (OutputStream out = new BufferedOutputStream(pending, 1 << 16)) {
        ParquetFileWriter writer = new ParquetFileWriter(out, batch.getSchema(), options);
        while (reader.loadNextBatch()) {
          writer.write(batch);
          rows += batch.getRowCount();
        }
        writer.finish();
      }
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
    createLocalParent(store, target);
    return writeCsvObject(reader, store, target, delimiter, header);
  }

  private static void createLocalParent(ObjectStore store, String target) {
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

  static void deleteRecursively(Path dir) {
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
}
