package dev.quiver.examples.tpch;

import dev.quiver.binding.datasource.parquet.ParquetFileWriter;
import dev.quiver.binding.datasource.parquet.ParquetWriteOptions;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchColumnType;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
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
    // Chunks are independent files: write a table's chunks in parallel, one per core (the
    // generator and the encoder both run in Java, on the chunk's thread).
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (BufferAllocator child = allocator.newChildAllocator("tpch-gen", 0, Long.MAX_VALUE)) {
      int i = 0;
      while (i < chunks.size()) {
        String name = chunks.get(i).table.getTableName();
        List<Future<?>> running = new ArrayList<>();
        for (; i < chunks.size() && chunks.get(i).table.getTableName().equals(name); i++) {
          Chunk chunk = chunks.get(i);
          running.add(pool.submit(() -> writeChunk(child, scaleFactor, chunk)));
        }
        awaitAll(running);
        Files.writeString(marker(dir, name, scaleFactor), "complete\n");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write TPC-H data to " + dir, e);
    } finally {
      pool.shutdownNow();
    }
    return dir;
  }

  /** Waits for every write; the first failure is rethrown once all have ended. */
  private static void awaitAll(List<Future<?>> running) {
    RuntimeException failure = null;
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        running.forEach(r -> r.cancel(true));
        throw new IllegalStateException("Interrupted while generating TPC-H data", e);
      } catch (ExecutionException e) {
        if (failure == null) {
          failure =
              e.getCause() instanceof RuntimeException r
                  ? r
                  : new IllegalStateException(e.getCause());
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static void writeChunk(BufferAllocator allocator, double scaleFactor, Chunk chunk) {
    String name = chunk.table.getTableName() + "-" + chunk.part;
    // Written beside the table folder under a hidden name, then moved in whole, so that the folder
    // never holds a partial file.
    Path temp = chunk.dir.resolveSibling("." + name + ".parquet.tmp");
    Path target = chunk.dir.resolve("part-" + chunk.part + "-0.parquet");
    try (BufferAllocator child = allocator.newChildAllocator(name, 0, Long.MAX_VALUE)) {
      try (GeneratorReader<?> reader = GeneratorReader.create(child, chunk, scaleFactor);
          OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 1 << 16)) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        ParquetFileWriter writer =
            new ParquetFileWriter(out, root.getSchema(), ParquetWriteOptions.DEFAULT);
        while (reader.loadNextBatch()) {
          writer.write(root);
        }
        writer.finish();
      }
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + name + " to " + chunk.dir, e);
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
