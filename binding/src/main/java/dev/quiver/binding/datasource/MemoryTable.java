package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.ConstraintViolationException;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.expr.Vectors;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.scan.MemoryScanExec;
import dev.quiver.binding.physical.scan.ScanBatches;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Batches held in memory; INSERT appends, UPDATE and DELETE replace the whole contents. The table
 * owns copies of its batches; scans read reference-counted slices of them, so the table must stay
 * open while a scan of it runs (a replace frees the old contents when it commits, as DROP TABLE
 * does).
 *
 * <p>Writes through {@link #insert} and {@link #replace} enforce the table's constraints: NOT NULL
 * columns (the schema's non-nullable fields) and its PRIMARY KEY and UNIQUE keys ({@link
 * TableConstraints}); a write that breaks one fails with {@link ConstraintViolationException} and
 * changes nothing. A statement that reads the table to compute its write holds {@link #writeLock()}
 * from the read to the commit, so concurrent writers do not lose each other's rows.
 */
public final class MemoryTable implements TableProvider, AutoCloseable {
  private final Schema schema;
  private final BufferAllocator allocator;
  // Replaced by CREATE INDEX and DROP INDEX under the write lock.
  private volatile TableConstraints constraints;
  private final ReentrantLock writeLock = new ReentrantLock();
  // Copy-on-write: a scan keeps the list it saw while INSERT publishes a new one.
  private volatile List<VectorSchemaRoot> batches = List.of();
  private boolean closed;

  /** Creates a table holding copies of {@code batches} allocated from {@code allocator}. */
  public MemoryTable(Schema schema, List<VectorSchemaRoot> batches, BufferAllocator allocator) {
    this(schema, batches, allocator, TableConstraints.NONE);
  }

  /** Creates a table with keys and defaults, holding copies of {@code batches}. */
  public MemoryTable(
      Schema schema,
      List<VectorSchemaRoot> batches,
      BufferAllocator allocator,
      TableConstraints constraints) {
    this.schema = schema;
    this.allocator = allocator;
    this.constraints = constraints;
    for (TableConstraints.Key key : constraints.keys()) {
      for (String column : key.columns()) {
        index(column);
      }
    }
    append(batches);
  }

  /** The table's keys, column defaults and indexes. */
  public TableConstraints constraints() {
    return constraints;
  }

  /**
   * Adds {@code index} (its columns must exist); a UNIQUE one is checked on the rows already here
   * first, and the {@link ConstraintViolationException} naming {@code statement} and the duplicate
   * key leaves the table without it.
   */
  public void addIndex(String statement, String table, TableConstraints.Index index) {
    writeLock.lock();
    try {
      index.columns().forEach(this::index);
      if (index.unique()) {
        checkUnique(statement, table, List.of(), batches, index.columns(), index.toString());
      }
      constraints = constraints.withIndex(index);
    } finally {
      writeLock.unlock();
    }
  }

  /** Removes index {@code name}; whether the table had it. */
  public boolean dropIndex(String name) {
    writeLock.lock();
    try {
      TableConstraints before = constraints;
      constraints = before.withoutIndex(name);
      return before.index(name) != null;
    } finally {
      writeLock.unlock();
    }
  }

  /** Held by a statement from reading the table to committing its write. */
  public ReentrantLock writeLock() {
    return writeLock;
  }

  /**
   * Appends {@code rows} if they keep every constraint, else throws {@link
   * ConstraintViolationException} naming {@code statement} (e.g. {@code INSERT INTO t}) and table
   * {@code table}, and appends nothing.
   */
  public void insert(String statement, String table, List<VectorSchemaRoot> rows) {
    writeLock.lock();
    try {
      check(statement, table, batches, rows);
      append(rows);
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Replaces the whole contents with copies of {@code rows} if they keep every constraint, else
   * throws {@link ConstraintViolationException} and keeps the contents.
   */
  public void replace(String statement, String table, List<VectorSchemaRoot> rows) {
    writeLock.lock();
    try {
      check(statement, table, List.of(), rows);
      List<VectorSchemaRoot> copies = copies(rows);
      List<VectorSchemaRoot> old;
      synchronized (this) {
        if (closed) {
          copies.forEach(VectorSchemaRoot::close);
          throw new DataSourceException("Memory table is closed; register the data again");
        }
        old = this.batches;
        this.batches = List.copyOf(copies);
      }
      old.forEach(VectorSchemaRoot::close);
    } finally {
      writeLock.unlock();
    }
  }

  /** Rows in the table now. */
  public long rowCount() {
    long rows = 0;
    for (VectorSchemaRoot b : batches) {
      rows += b.getRowCount();
    }
    return rows;
  }

  private void check(
      String statement,
      String table,
      List<VectorSchemaRoot> existing,
      List<VectorSchemaRoot> rows) {
    List<Field> fields = schema.getFields();
    for (int c = 0; c < fields.size(); c++) {
      if (fields.get(c).isNullable()) {
        continue;
      }
      for (VectorSchemaRoot batch : rows) {
        FieldVector v = batch.getVector(c);
        if (v.getNullCount() > 0) {
          String column = fields.get(c).getName();
          throw new ConstraintViolationException(
              statement + ": NULL in column " + column + ", which is NOT NULL; no row was written",
              table,
              column,
              "NULL");
        }
      }
    }
    TableConstraints now = constraints;
    for (TableConstraints.Key key : now.keys()) {
      checkUnique(statement, table, existing, rows, key.columns(), key.toString());
    }
    for (TableConstraints.Index index : now.indexes()) {
      if (index.unique()) {
        checkUnique(statement, table, existing, rows, index.columns(), index.toString());
      }
    }
  }

  /** Throws if a row of {@code rows} repeats the {@code columns} of another row or of existing. */
  private void checkUnique(
      String statement,
      String table,
      List<VectorSchemaRoot> existing,
      List<VectorSchemaRoot> rows,
      List<String> columns,
      String constraint) {
    int[] cols = columns.stream().mapToInt(this::index).toArray();
    Set<List<Object>> seen = new HashSet<>();
    for (VectorSchemaRoot batch : existing) {
      for (int r = 0; r < batch.getRowCount(); r++) {
        List<Object> k = keyOf(batch, cols, r);
        if (k != null) {
          seen.add(k);
        }
      }
    }
    for (VectorSchemaRoot batch : rows) {
      for (int r = 0; r < batch.getRowCount(); r++) {
        List<Object> k = keyOf(batch, cols, r);
        if (k != null && !seen.add(k)) {
          String column =
              cols.length == 1 ? columns.get(0) : "(" + String.join(", ", columns) + ")";
          String value =
              cols.length == 1
                  ? sql(k.get(0))
                  : "(" + String.join(", ", k.stream().map(MemoryTable::sql).toList()) + ")";
          throw new ConstraintViolationException(
              statement
                  + ": duplicate value "
                  + value
                  + " in column"
                  + (cols.length == 1 ? " " : "s ")
                  + column
                  + " breaks "
                  + constraint
                  + "; no row was written",
              table,
              column,
              value);
        }
      }
    }
  }

  /** The key of row {@code r}, or null when a key column is NULL (UNIQUE allows many NULLs). */
  private static List<Object> keyOf(VectorSchemaRoot batch, int[] cols, int r) {
    List<Object> k = new ArrayList<>(cols.length);
    for (int c : cols) {
      Object v = Vectors.getValue(batch.getVector(c), r);
      if (v == null) {
        return null;
      }
      k.add(v);
    }
    return k;
  }

  private int index(String column) {
    List<Field> fields = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getName().equalsIgnoreCase(column)) {
        return i;
      }
    }
    throw new IllegalArgumentException("Key column " + column + " is not in " + schema);
  }

  /** A value as SQL writes it. */
  private static String sql(Object v) {
    if (v instanceof String s) {
      return "'" + s.replace("'", "''") + "'";
    }
    if (v instanceof java.time.LocalDate d) {
      return "DATE '" + d + "'";
    }
    return String.valueOf(v);
  }

  private List<VectorSchemaRoot> copies(List<VectorSchemaRoot> batches) {
    List<VectorSchemaRoot> copies = new ArrayList<>(batches.size());
    try {
      for (VectorSchemaRoot batch : batches) {
        checkSchema(batch.getSchema());
        copies.add(Batches.withSchema(ScanBatches.deepCopy(batch, allocator), schema));
      }
    } catch (RuntimeException e) {
      copies.forEach(VectorSchemaRoot::close);
      throw e;
    }
    return copies;
  }

  /** Appends copies of {@code batches} (same schema). */
  public void append(List<VectorSchemaRoot> batches) {
    List<VectorSchemaRoot> copies = copies(batches);
    synchronized (this) {
      if (closed) {
        copies.forEach(VectorSchemaRoot::close);
        throw new DataSourceException("Memory table is closed; register the data again");
      }
      List<VectorSchemaRoot> all = new ArrayList<>(this.batches);
      all.addAll(copies);
      this.batches = List.copyOf(all);
    }
  }

  private void checkSchema(Schema other) {
    List<Field> mine = schema.getFields();
    List<Field> theirs = other.getFields();
    boolean same = mine.size() == theirs.size();
    for (int i = 0; same && i < mine.size(); i++) {
      same = mine.get(i).getType().equals(theirs.get(i).getType());
    }
    if (!same) {
      throw new DataSourceException(
          "Batch schema "
              + other
              + " does not match the memory table's schema "
              + schema
              + "; cast the columns to the table's types");
    }
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public ExecutionPlan scan(ScanRequest request) {
    return new MemoryScanExec(
        schema,
        batches,
        request.projection(),
        request.limit(),
        Math.max(1, request.targetPartitions()),
        request.config().batchSize());
  }

  @Override
  public TableStatistics statistics() {
    List<VectorSchemaRoot> snapshot = batches;
    long rows = 0;
    long bytes = 0;
    for (VectorSchemaRoot b : snapshot) {
      rows += b.getRowCount();
      bytes += ScanBatches.bufferBytes(b);
    }
    return TableStatistics.of(rows, bytes);
  }

  /** The table's batches (owned by the table; do not close them). */
  public List<VectorSchemaRoot> batches() {
    return batches;
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      batches.forEach(VectorSchemaRoot::close);
      batches = List.of();
    }
  }
}
