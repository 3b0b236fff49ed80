package dev.quiver.examples.tpch;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchColumnType;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.dataset.file.DatasetFileWriter;
import org.apache.arrow.dataset.file.FileFormat;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Generates the eight TPC-H tables at a scale factor as Parquet files, one folder per table. */
public final class TpchData {
  /** The TPC-H table names, as used in the queries and as folder names. */
  public static final List<String> TABLES =
      List.of("part", "supplier", "partsupp", "customer", "orders", "lineitem", "nation", "region");

  private static final int BATCH_ROWS = 64 * 1024;
  // Tables larger than this are written as several files, which gives scans more than one file
  // to split across partitions.
  private static final long ROWS_PER_FILE = 1_000_000;
  private static final int MIN_FILES = 4;

  private TpchData() {}

  /** The default data folder for a scale factor: {@code ./data/tpch-sf<sf>}. */
  public static Path defaultDirectory(double scaleFactor) {
    return Path.of("data", "tpch-sf" + formatScale(scaleFactor));
  }

  /** The folder holding table {@code table}'s Parquet files under {@code dir}. */
  public static Path tableDirectory(Path dir, String table) {
    return dir.resolve(table);
  }

  /** Renders a scale factor without trailing zeros ({@code 0.1}, {@code 1}). */
  public static String formatScale(double scaleFactor) {
    return BigDecimal.valueOf(scaleFactor).stripTrailingZeros().toPlainString();
  }

  /** The Arrow schema of a TPC-H table, with the spec's column types. */
  public static Schema schema(String table) {
    return schemaOf(tpchTable(table));
  }

  /** Whether every table of this scale factor is already in {@code dir}. */
  public static boolean isComplete(Path dir, double scaleFactor) {
    return TABLES.stream().allMatch(t -> Files.exists(marker(dir, t, scaleFactor)));
  }

  /**
   * Generates the tables missing from {@code dir} with a private allocator; returns {@code dir}.
   */
  public static Path generate(double scaleFactor, Path dir) {
    try (BufferAllocator allocator = new RootAllocator()) {
      return generate(allocator, scaleFactor, dir);
    }
  }

  /**
   * Generates every table of {@code scaleFactor} that {@code dir} does not yet hold (a marker file
   * per table and scale factor records completed tables); returns {@code dir}.
   */
  public static Path generate(BufferAllocator allocator, double scaleFactor, Path dir) {
    if (!(scaleFactor > 0)) {
      throw new IllegalArgumentException("Scale factor must be positive, got " + scaleFactor);
    }
    List<Chunk> chunks = new ArrayList<>();
    try {
      Files.createDirectories(dir);
      for (TpchTable<?> table : TpchTable.getTables()) {
        String name = table.getTableName();
        if (Files.exists(marker(dir, name, scaleFactor))) {
          continue;
        }
        Path tableDir = tableDirectory(dir, name);
        deleteRecursively(tableDir);
        Files.createDirectories(tableDir);
        int parts = partCount(name, scaleFactor);
        for (int part = 1; part <= parts; part++) {
          chunks.add(new Chunk(table, part, parts, tableDir));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare TPC-H data folder " + dir, e);
    }
    if (chunks.isEmpty()) {
      return dir;
    }
    // One write at a time: concurrent native dataset writes can starve Arrow's CPU thread pool
    // (sized to the core count) and deadlock. The native side encodes while Java generates.
    try (BufferAllocator child = allocator.newChildAllocator("tpch-gen", 0, Long.MAX_VALUE)) {
      String previous = null;
      for (Chunk chunk : chunks) {
        String name = chunk.table.getTableName();
        if (previous != null && !previous.equals(name)) {
          Files.writeString(marker(dir, previous, scaleFactor), "complete\n");
        }
        writeChunk(child, scaleFactor, chunk);
        previous = name;
      }
      Files.writeString(marker(dir, previous, scaleFactor), "complete\n");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write TPC-H data to " + dir, e);
    }
    return dir;
  }

  private static void writeChunk(BufferAllocator allocator, double scaleFactor, Chunk chunk) {
    String name = chunk.table.getTableName() + "-" + chunk.part;
    // The native writer refuses a non-empty folder, so each chunk goes to a staging folder next
    // to the table's and its files are then moved in.
    Path staging = chunk.dir.resolveSibling("." + name + ".staging");
    try (BufferAllocator child = allocator.newChildAllocator(name, 0, Long.MAX_VALUE)) {
      deleteRecursively(staging);
      try (GeneratorReader<?> reader = GeneratorReader.create(child, chunk, scaleFactor)) {
        DatasetFileWriter.write(
            child,
            reader,
            FileFormat.PARQUET,
            staging.toAbsolutePath().toUri().toString(),
            new String[0],
            1024,
            "part-" + chunk.part + "-{i}.parquet");
      }
      awaitReleased(child);
      try (Stream<Path> files = Files.list(staging)) {
        for (Path f : files.toList()) {
          Files.move(f, chunk.dir.resolve(f.getFileName()), StandardCopyOption.ATOMIC_MOVE);
        }
      }
      Files.delete(staging);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + name + " to " + chunk.dir, e);
    }
  }

  // The native writer releases the last exported batches from its own threads, possibly just
  // after write() returns; closing the allocator before that would report a false leak.
  private static void awaitReleased(BufferAllocator allocator) {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (allocator.getAllocatedMemory() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static int partCount(String table, double scaleFactor) {
    if (table.equals("nation") || table.equals("region")) {
      return 1; // fixed-size tables ignore the part arguments
    }
    // At least MIN_FILES files, so that even small scale factors are scanned by several
    // partitions and every multi-partition path (repartition, partial/final) is exercised.
    long rows = estimatedRows(table, scaleFactor);
    return (int) Math.max(MIN_FILES, Math.min(64, (rows + ROWS_PER_FILE - 1) / ROWS_PER_FILE));
  }

  private static long estimatedRows(String table, double scaleFactor) {
    long perSf =
        switch (table) {
          case "lineitem" -> 6_000_000;
          case "orders" -> 1_500_000;
          case "partsupp" -> 800_000;
          case "part" -> 200_000;
          case "customer" -> 150_000;
          case "supplier" -> 10_000;
          default -> 25;
        };
    return (long) Math.ceil(perSf * scaleFactor);
  }

  private static Path marker(Path dir, String table, double scaleFactor) {
    // Kept outside the table folder so that readers of "<table>/*" see only Parquet files.
    return dir.resolve("." + table + ".sf" + formatScale(scaleFactor) + ".done");
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static TpchTable<?> tpchTable(String name) {
    for (TpchTable<?> t : TpchTable.getTables()) {
      if (t.getTableName().equalsIgnoreCase(name)) {
        return t;
      }
    }
    throw new IllegalArgumentException("Unknown TPC-H table '" + name + "': use one of " + TABLES);
  }

  private static Schema schemaOf(TpchTable<?> table) {
    List<Field> fields = new ArrayList<>();
    for (TpchColumn<?> column : table.getColumns()) {
      fields.add(
          new Field(
              column.getColumnName(), FieldType.notNullable(arrowType(column.getType())), null));
    }
    return new Schema(fields);
  }

  private static ArrowType arrowType(TpchColumnType type) {
    return switch (type.getBase()) {
      case IDENTIFIER -> new ArrowType.Int(64, true);
      case INTEGER -> new ArrowType.Int(32, true);
      // Every DOUBLE column of TPC-H is a DECIMAL(15,2) in the spec (money, quantity, rates).
      case DOUBLE -> new ArrowType.Decimal(15, 2, 128);
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case VARCHAR -> ArrowType.Utf8.INSTANCE;
    };
  }

  /** One generator slice of one table, written to its own file(s). */
  private record Chunk(TpchTable<?> table, int part, int parts, Path dir) {}

  /** Writes one entity's column value into row {@code row} of a vector. */
  private interface Filler<E> {
    void fill(E entity, int row);
  }

  /** Streams a generator's rows as Arrow batches, filling the vectors directly. */
  private static final class GeneratorReader<E extends TpchEntity> extends ArrowReader {
    private final TpchTable<E> table;
    private final Schema schema;
    private final Iterator<E> rows;
    private final List<Filler<E>> fillers = new ArrayList<>();
    private long bytes;

    private GeneratorReader(BufferAllocator allocator, TpchTable<E> table, Iterator<E> rows) {
      super(allocator);
      this.table = table;
      this.schema = schemaOf(table);
      this.rows = rows;
    }

    static GeneratorReader<?> create(BufferAllocator allocator, Chunk chunk, double scaleFactor) {
      return of(allocator, chunk.table, chunk, scaleFactor);
    }

    private static <T extends TpchEntity> GeneratorReader<T> of(
        BufferAllocator allocator, TpchTable<T> table, Chunk chunk, double scaleFactor) {
      Iterator<T> it = table.createGenerator(scaleFactor, chunk.part, chunk.parts).iterator();
      return new GeneratorReader<>(allocator, table, it);
    }

    @Override
    protected Schema readSchema() {
      return schema;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      prepareLoadNextBatch();
      VectorSchemaRoot root = getVectorSchemaRoot();
      if (fillers.isEmpty()) {
        bindFillers(root);
      }
      if (!rows.hasNext()) {
        root.setRowCount(0);
        return false;
      }
      for (FieldVector v : root.getFieldVectors()) {
        v.clear();
        if (v instanceof VarCharVector vc) {
          vc.allocateNew(BATCH_ROWS * 24L, BATCH_ROWS);
        } else {
          v.setInitialCapacity(BATCH_ROWS);
          v.allocateNew();
        }
      }
      int n = 0;
      while (n < BATCH_ROWS && rows.hasNext()) {
        E entity = rows.next();
        for (int c = 0; c < fillers.size(); c++) {
          fillers.get(c).fill(entity, n);
        }
        n++;
      }
      for (FieldVector v : root.getFieldVectors()) {
        v.setValueCount(n);
        bytes += v.getBufferSize();
      }
      root.setRowCount(n);
      return true;
    }

    private void bindFillers(VectorSchemaRoot root) {
      List<TpchColumn<E>> columns = table.getColumns();
      for (int i = 0; i < columns.size(); i++) {
        TpchColumn<E> col = columns.get(i);
        FieldVector vector = root.getVector(i);
        switch (col.getType().getBase()) {
          case IDENTIFIER -> {
            BigIntVector v = (BigIntVector) vector;
            fillers.add((e, r) -> v.set(r, col.getIdentifier(e)));
          }
          case INTEGER -> {
            IntVector v = (IntVector) vector;
            fillers.add((e, r) -> v.set(r, col.getInteger(e)));
          }
          case DOUBLE -> {
            DecimalVector v = (DecimalVector) vector;
            // The generator works in hundredths and divides by 100.0, so rounding back is exact.
            fillers.add((e, r) -> v.set(r, Math.round(col.getDouble(e) * 100.0)));
          }
          case DATE -> {
            DateDayVector v = (DateDayVector) vector;
            fillers.add((e, r) -> v.set(r, col.getDate(e)));
          }
          case VARCHAR -> {
            VarCharVector v = (VarCharVector) vector;
            fillers.add(
                (e, r) -> {
                  byte[] b = col.getString(e).getBytes(StandardCharsets.UTF_8);
                  v.setSafe(r, b, 0, b.length);
                });
          }
        }
      }
    }

    @Override
    public long bytesRead() {
      return bytes;
    }

    @Override
    protected void closeReadSource() {}
  }
}
