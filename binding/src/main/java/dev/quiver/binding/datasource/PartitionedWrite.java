package dev.quiver.binding.datasource;

import dev.quiver.binding.datasource.parquet.ParquetFileWriter;
import dev.quiver.binding.datasource.parquet.ParquetWriteOptions;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.io.LocalFileAccess;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.PendingObject;
import dev.quiver.binding.settings.SessionConfig;
import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code COPY ... TO 'dir' (FORMAT PARQUET, PARTITION_BY (a, b))} as DuckDB writes it: each row
 * goes to {@code dir/a=1/b=x/data_0.parquet} by its values of the partition columns, which are in
 * the folder names and not in the files (unless asked for), NULL as {@code a=NULL}, characters
 * other than letters, digits and {@code -_.~} as {@code %XX}. The files are published together at
 * the end, as {@link FileWriters#writeParquet} publishes a folder: nothing is visible before the
 * write has succeeded.
 */
public final class PartitionedWrite {
  /** What a target folder that already holds files gets. */
  public enum Existing {
    /** An error (DuckDB's default). */
    FAIL,
    /** The new files are added, replacing files of the same name (DuckDB's OVERWRITE_OR_IGNORE). */
    OVERWRITE_OR_IGNORE,
    /** The folder's contents are removed first (DuckDB's OVERWRITE; local folders only). */
    OVERWRITE
  }

  /** The layout of the files of one partition. */
  public interface FileFormat {
    /** The file name's extension, with its dot. */
    String extension();

    /** A writer of one file of {@code schema}'s rows into {@code out}. */
    PartFile open(OutputStream out, Schema schema) throws IOException;
  }

  /** One partition's file being written. */
  public interface PartFile {
    void write(VectorSchemaRoot batch) throws IOException;

    /** Writes what remains (a footer) and closes the file. */
    void finish() throws IOException;
  }

  private PartitionedWrite() {}

  /** Parquet files laid out by {@code options}. */
  public static FileFormat parquet(ParquetWriteOptions options) {
    return new FileFormat() {
      @Override
      public String extension() {
        return ".parquet";
      }

      @Override
      public PartFile open(OutputStream out, Schema schema) throws IOException {
        OutputStream buffered = new BufferedOutputStream(out, 1 << 16);
        ParquetFileWriter writer = new ParquetFileWriter(buffered, schema, options);
        return new PartFile() {
          @Override
          public void write(VectorSchemaRoot batch) throws IOException {
            writer.write(batch);
          }

          @Override
          public void finish() throws IOException {
            writer.finish();
            buffered.close();
          }
        };
      }
    };
  }

  /** CSV files with {@code delimiter}, a header line unless {@code header} is false. */
  public static FileFormat csv(char delimiter, boolean header) {
    return new FileFormat() {
      @Override
      public String extension() {
        return ".csv";
      }

      @Override
      public PartFile open(OutputStream out, Schema schema) throws IOException {
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        if (header) {
          w.write(CsvFormat.header(schema, delimiter));
          w.write('\n');
        }
        return new PartFile() {
          @Override
          public void write(VectorSchemaRoot batch) throws IOException {
            FileWriters.appendCsvLines(w, batch, delimiter);
          }

          @Override
          public void finish() throws IOException {
            w.close();
          }
        };
      }
    };
  }

  /** A partition's open file. */
  private record Open(String relative, OutputStream out, PartFile file) {}

  /**
   * Writes every batch of {@code reader} under {@code location} (a local folder or {@code
   * s3://bucket/prefix}) in Hive folders by the values of {@code columns}; returns rows written.
   */
  public static long write(
      ArrowReader reader,
      String location,
      SessionConfig config,
      List<String> columns,
      boolean writePartitionColumns,
      FileFormat format,
      Existing existing) {
    String root = ObjectStores.normalize(location);
    ObjectStore store = ObjectStores.forLocation(root, config);
    Schema schema;
    try {
      schema = reader.getVectorSchemaRoot().getSchema();
    } catch (IOException e) {
      throw new DataSourceException("Cannot read the rows to write to " + root, e);
    }
    int[] keys = keyColumns(schema, columns);
    List<Integer> data = new ArrayList<>();
    for (int c = 0; c < schema.getFields().size(); c++) {
      final int col = c;
      if (writePartitionColumns || java.util.Arrays.stream(keys).noneMatch(k -> k == col)) {
        data.add(c);
      }
    }
    if (data.isEmpty()) {
      throw new DataSourceException(
          "COPY ... PARTITION_BY "
              + columns
              + ": every column is a partition column, so the files"
              + " would hold none; keep at least one column out of PARTITION_BY");
    }
    List<Field> dataFields = data.stream().map(schema.getFields()::get).toList();
    Schema dataSchema = new Schema(dataFields);
    checkTarget(store, root, existing);

    Map<List<String>, Open> files = new LinkedHashMap<>();
    List<PendingObject> pending = new ArrayList<>();
    Path staging = null;
    long rows = 0;
    try {
      staging = store.isLocal() ? FileWriters.localStaging(Path.of(root)) : null;
      Path out = staging == null ? null : Files.createDirectories(staging.resolve("out"));
      VectorSchemaRoot batch = reader.getVectorSchemaRoot();
      while (reader.loadNextBatch()) {
        int n = batch.getRowCount();
        if (n == 0) {
          continue;
        }
        Map<List<String>, List<Integer>> groups = new LinkedHashMap<>();
        List<FieldVector> vectors = batch.getFieldVectors();
        for (int r = 0; r < n; r++) {
          List<String> key = new ArrayList<>(keys.length);
          for (int k : keys) {
            key.add(folderValue(vectors.get(k), r));
          }
          groups.computeIfAbsent(key, x -> new ArrayList<>()).add(r);
        }
        List<FieldVector> dataVectors = data.stream().map(vectors::get).toList();
        for (Map.Entry<List<String>, List<Integer>> g : groups.entrySet()) {
          Open file = files.get(g.getKey());
          if (file == null) {
            String relative = folders(schema, keys, g.getKey()) + "data_0" + format.extension();
            OutputStream stream;
            if (out != null) {
              Path p = out.resolve(relative);
              Files.createDirectories(p.getParent());
              stream = Files.newOutputStream(p);
            } else {
              PendingObject object = store.create(store.resolve(root, relative));
              pending.add(object);
              stream = object;
            }
            file = new Open(relative, stream, format.open(stream, dataSchema));
            files.put(g.getKey(), file);
          }
          if (groups.size() == 1) {
            // The whole batch is one partition: its vectors are written as they are.
            file.file().write(new VectorSchemaRoot(dataFields, dataVectors, n));
          } else {
            try (VectorSchemaRoot part = rowsOf(dataVectors, g.getValue(), allocator(vectors))) {
              file.file().write(part);
            }
          }
        }
        rows += n;
      }
      for (Open f : files.values()) {
        f.file().finish();
      }
      files.clear();
      if (out != null) {
        publishLocal(out, Path.of(root), existing);
      } else {
        store.publishAll(pending);
      }
    } catch (IOException | RuntimeException e) {
      throw FileWriters.writeFailed(pending, "partitioned files to " + root, e);
    } finally {
      for (Open f : files.values()) {
        if (!(f.out() instanceof PendingObject)) {
          try {
            f.out().close();
          } catch (IOException e) {
            // The write already failed; its staging folder is removed next.
          }
        }
      }
      if (staging != null) {
        FileWriters.deleteRecursively(staging);
      }
    }
    return rows;
  }

  /** The indexes of the partition columns, matched case-insensitively. */
  private static int[] keyColumns(Schema schema, List<String> columns) {
    if (columns.isEmpty()) {
      throw new DataSourceException("PARTITION_BY needs at least one column: PARTITION_BY (col)");
    }
    int[] keys = new int[columns.size()];
    List<String> names = schema.getFields().stream().map(Field::getName).toList();
    for (int i = 0; i < keys.length; i++) {
      String wanted = columns.get(i);
      keys[i] = -1;
      for (int c = 0; c < names.size(); c++) {
        if (names.get(c).equalsIgnoreCase(wanted)) {
          keys[i] = c;
        }
      }
      if (keys[i] < 0) {
        throw new DataSourceException(
            "PARTITION_BY column " + wanted + " is not a column of the query; it has " + names);
      }
      if (!schema.getFields().get(keys[i]).getChildren().isEmpty()) {
        throw new DataSourceException(
            "PARTITION_BY column "
                + wanted
                + " is nested ("
                + schema.getFields().get(keys[i]).getType()
                + "); partition by columns of simple types");
      }
    }
    return keys;
  }

  /** Fails unless {@code root} is absent or empty, or {@code existing} allows writing into it. */
  private static void checkTarget(ObjectStore store, String root, Existing existing) {
    if (store.isLocal()) {
      Path dir = LocalFileAccess.check(Path.of(root));
      if (Files.exists(dir) && !Files.isDirectory(dir)) {
        throw new DataSourceException(
            "COPY ... PARTITION_BY writes a folder, but " + root + " is a file");
      }
      if (existing == Existing.FAIL && !FileWriters.emptyOrAbsent(dir)) {
        throw notEmpty(root);
      }
    } else if (existing == Existing.OVERWRITE) {
      throw new DataSourceException(
          "OVERWRITE removes a folder's contents, which Quiver does only for local folders; use"
              + " OVERWRITE_OR_IGNORE for "
              + root
              + " (files of the same name are replaced)");
    } else if (existing == Existing.FAIL && !store.isEmpty(root)) {
      throw notEmpty(root);
    }
  }

  /** DuckDB's words, and Quiver's second option. */
  private static DataSourceException notEmpty(String root) {
    return new DataSourceException(
        "Directory \""
            + root
            + "\" is not empty! Enable OVERWRITE option to overwrite files (or"
            + " OVERWRITE_OR_IGNORE to add the new files, replacing those of the same name)");
  }

  /**
   * Publishes the finished folder {@code out} at {@code target}: in one atomic rename when the
   * target is absent or empty, else file by file.
   */
  private static void publishLocal(Path out, Path target, Existing existing) throws IOException {
    if (existing == Existing.OVERWRITE && Files.exists(target)) {
      FileWriters.deleteRecursively(target);
    }
    if (FileWriters.emptyOrAbsent(target)) {
      Files.deleteIfExists(target);
      FileWriters.publishFolder(out, target);
      return;
    }
    List<Path> written;
    try (Stream<Path> walk = Files.walk(out)) {
      written = walk.filter(Files::isRegularFile).toList();
    }
    for (Path f : written) {
      Path dest = target.resolve(out.relativize(f).toString());
      Files.createDirectories(dest.getParent());
      Files.move(f, dest, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  /** {@code a=1/b=x/}: the folders of a partition, names and values escaped. */
  private static String folders(Schema schema, int[] keys, List<String> values) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < keys.length; i++) {
      b.append(escape(schema.getFields().get(keys[i]).getName()))
          .append('=')
          .append(values.get(i) == null ? "NULL" : escape(values.get(i)))
          .append('/');
    }
    return b.toString();
  }

  /** The text of a partition value (null for NULL), as DuckDB writes it in a folder name. */
  private static String folderValue(FieldVector v, int row) {
    if (v.isNull(row)) {
      return null;
    }
    if (v instanceof BaseVariableWidthVector || v instanceof BaseLargeVariableWidthVector) {
      return String.valueOf(v.getObject(row));
    }
    return CsvFormat.render(v, row);
  }

  /** Hive's escaping of folder names: what is not a letter, digit or {@code -_.~} as %XX. */
  static String escape(String s) {
    StringBuilder b = new StringBuilder();
    for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (x & 0xFF);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "-_.~".indexOf(c) >= 0) {
        b.append(c);
      } else {
        b.append('%').append(String.format(Locale.ROOT, "%02X", x & 0xFF));
      }
    }
    return b.toString();
  }

  private static BufferAllocator allocator(List<FieldVector> vectors) {
    return vectors.get(0).getAllocator();
  }

  /** A batch of the rows {@code rows} of {@code vectors}, copied. */
  private static VectorSchemaRoot rowsOf(
      List<FieldVector> vectors, List<Integer> rows, BufferAllocator allocator) {
    List<FieldVector> copies = new ArrayList<>(vectors.size());
    try {
      for (FieldVector from : vectors) {
        FieldVector to = from.getField().createVector(allocator);
        copies.add(to);
        to.setInitialCapacity(rows.size());
        to.allocateNew();
        for (int i = 0; i < rows.size(); i++) {
          to.copyFromSafe(rows.get(i), i, from);
        }
        to.setValueCount(rows.size());
      }
    } catch (RuntimeException e) {
      copies.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(
        copies.stream().map(FieldVector::getField).toList(), copies, rows.size());
  }
}
