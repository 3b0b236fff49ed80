package dev.quiver.iceberg.write;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.physical.scan.ScanBatches;
import dev.quiver.iceberg.io.QuiverFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.StructLikeMap;

/**
 * Writes a statement's rows as data files of one table: rows are split by the table's partition
 * spec (transforms evaluated by Iceberg's {@link PartitionKey}), held per partition until {@link
 * #BUFFER_BYTES} of Arrow data (or the table's {@code write.target-file-size-bytes}, if smaller)
 * are held, then each partition's rows become one Parquet file with its metrics. The files are not
 * part of the table until the caller commits them; {@link #abort} deletes them.
 */
final class DataFileWriter implements AutoCloseable {
  /** Arrow bytes held before every partition's rows are written out as files. */
  static final long BUFFER_BYTES = 64L << 20;

  private final String name;
  private final QuiverFileIO io;
  private final PartitionSpec spec;
  private final LocationProvider locations;
  private final List<Types.NestedField> columns;
  private final Type[] types;
  private final Schema fileSchema;
  private final BufferAllocator allocator;
  private final PartitionKey key;
  private final StructLikeMap<List<VectorSchemaRoot>> held;
  private final List<VectorSchemaRoot> unpartitioned = new ArrayList<>();
  private final String filePrefix;
  private final List<DataFile> files = new ArrayList<>();
  private final List<String> written = new ArrayList<>();
  private final long flushBytes;
  private long heldBytes;
  private boolean checked;
  private long rows;

  DataFileWriter(Table table, String name, BufferAllocator parent) {
    this(WriteTarget.of(table, name, UUID.randomUUID().toString()), fileIo(table, name), parent);
  }

  /**
   * A writer for {@code target} reaching its files through {@code io}; its file names hold the
   * target's write id and one of the writer's own, so that writers of one statement never collide.
   */
  DataFileWriter(WriteTarget target, QuiverFileIO io, BufferAllocator parent) {
    this.name = target.name();
    this.io = io;
    org.apache.iceberg.Schema schema = target.icebergSchema();
    this.spec = target.partitionSpec(schema);
    this.locations = target.locations();
    this.filePrefix = target.writeId() + "-" + UUID.randomUUID();
    this.columns = schema.columns();
    this.types = columns.stream().map(Types.NestedField::type).toArray(Type[]::new);
    this.fileSchema = TableSchemas.fileSchema(schema, name);
    this.flushBytes =
        Math.min(
            BUFFER_BYTES,
            PropertyUtil.propertyAsLong(
                target.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, BUFFER_BYTES));
    this.allocator = parent.newChildAllocator("iceberg-write " + name, 0, Long.MAX_VALUE);
    this.key = spec.isUnpartitioned() ? null : new PartitionKey(spec, schema);
    this.held = spec.isUnpartitioned() ? null : StructLikeMap.create(spec.partitionType());
  }

  /** {@code table}'s FileIO, which must be Quiver's. */
  static QuiverFileIO fileIo(Table table, String name) {
    if (!(table.io() instanceof QuiverFileIO q)) {
      throw new UnsupportedFeatureException(
          "Iceberg table "
              + name
              + " is reached through "
              + table.io().getClass().getName()
              + "; Quiver writes through its own object stores only");
    }
    return q;
  }

  /** Writes every row of {@code rows}, whose columns are the table's in order. */
  void write(ArrowReader rows) throws IOException {
    VectorSchemaRoot in = rows.getVectorSchemaRoot();
    checkColumns(in.getSchema());
    checked = true;
    while (rows.loadNextBatch()) {
      add(in);
    }
    finish();
  }

  /**
   * Takes the rows of {@code in} (columns the table's, in order; its buffers may move), writing
   * files once enough rows are held.
   */
  void add(VectorSchemaRoot in) throws IOException {
    if (!checked) {
      checkColumns(in.getSchema());
      checked = true;
    }
    if (in.getRowCount() == 0) {
      return;
    }
    if (key == null) {
      hold(unpartitioned, take(in));
    } else {
      split(in);
    }
    if (heldBytes >= flushBytes) {
      flush();
    }
  }

  /** Writes the rows still held. */
  void finish() throws IOException {
    flush();
  }

  private void checkColumns(Schema given) {
    List<Field> fields = given.getFields();
    boolean same = fields.size() == columns.size();
    for (int i = 0; same && i < fields.size(); i++) {
      same = fields.get(i).getName().equalsIgnoreCase(columns.get(i).name());
    }
    if (!same) {
      throw new DataSourceException(
          "Iceberg table "
              + name
              + " changed while the statement ran: its columns are now "
              + columns.stream().map(Types.NestedField::name).toList()
              + "; run the statement again");
    }
  }

  /** The batch as a new batch of the file schema: buffers moved where types agree, else copied. */
  private VectorSchemaRoot take(VectorSchemaRoot in) {
    int n = in.getRowCount();
    VectorSchemaRoot out = VectorSchemaRoot.create(fileSchema, allocator);
    for (int c = 0; c < columns.size(); c++) {
      FieldVector from = in.getVector(c);
      FieldVector to = out.getVector(c);
      if (from.getField().getType().equals(to.getField().getType())) {
        from.makeTransferPair(to).transfer();
      } else {
        to.setInitialCapacity(n);
        to.allocateNew();
        for (int r = 0; r < n; r++) {
          copy(from, r, to, r);
        }
        to.setValueCount(n);
      }
    }
    out.setRowCount(n);
    return out;
  }

  /** Copies {@code in}'s rows into the batches of their partitions. */
  private void split(VectorSchemaRoot in) {
    int n = in.getRowCount();
    FieldVector[] vectors = in.getFieldVectors().toArray(FieldVector[]::new);
    ArrowValues.Row row = new ArrowValues.Row(vectors, types);
    StructLikeMap<List<Integer>> groups = StructLikeMap.create(spec.partitionType());
    for (int r = 0; r < n; r++) {
      key.partition(row.at(r));
      List<Integer> g = groups.get(key);
      if (g == null) {
        g = new ArrayList<>();
        groups.put(key.copy(), g);
      }
      g.add(r);
    }
    for (var group : groups.entrySet()) {
      List<Integer> picked = group.getValue();
      VectorSchemaRoot out = VectorSchemaRoot.create(fileSchema, allocator);
      for (int c = 0; c < columns.size(); c++) {
        FieldVector to = out.getVector(c);
        to.setInitialCapacity(picked.size());
        to.allocateNew();
        for (int i = 0; i < picked.size(); i++) {
          copy(vectors[c], picked.get(i), to, i);
        }
        to.setValueCount(picked.size());
      }
      out.setRowCount(picked.size());
      List<VectorSchemaRoot> batches = held.get(group.getKey());
      if (batches == null) {
        batches = new ArrayList<>();
        held.put(group.getKey(), batches);
      }
      hold(batches, out);
    }
  }

  private void hold(List<VectorSchemaRoot> batches, VectorSchemaRoot batch) {
    batches.add(batch);
    heldBytes += ScanBatches.bufferBytes(batch);
  }

  /** Copies one value, converting where the engine's type differs from the file's. */
  private static void copy(FieldVector from, int r, FieldVector to, int i) {
    if (from.isNull(r)) {
      to.setNull(i);
    } else if (to instanceof Float4Vector f && from instanceof Float8Vector d) {
      f.setSafe(i, (float) d.get(r));
    } else if (to instanceof TimeStampVector t && from instanceof TimeStampVector s) {
      t.setSafe(i, s.get(r));
    } else {
      to.copyFromSafe(r, i, from);
    }
  }

  /** Writes every partition's held rows as one file each. */
  private void flush() throws IOException {
    if (key == null) {
      writeFile(null, unpartitioned);
    } else {
      for (var e : held.entrySet()) {
        writeFile(e.getKey(), e.getValue());
      }
      held.clear();
    }
    heldBytes = 0;
  }

  private void writeFile(StructLike partition, List<VectorSchemaRoot> batches) throws IOException {
    if (batches.isEmpty()) {
      return;
    }
    try {
      FileMetrics metrics = new FileMetrics(name, columns);
      batches.forEach(metrics::add);
      String file = String.format(Locale.ROOT, "%s-%05d.parquet", filePrefix, files.size());
      String location =
          partition == null
              ? locations.newDataLocation(file)
              : locations.newDataLocation(spec, partition, file);
      written.add(location);
      ParquetFiles.Written w;
      try (BatchReader reader = new BatchReader(allocator, fileSchema, batches)) {
        w = ParquetFiles.write(reader, location, io, allocator);
      }
      DataFiles.Builder b =
          DataFiles.builder(spec)
              .withPath(location)
              .withFormat(FileFormat.PARQUET)
              .withFileSizeInBytes(w.bytes())
              .withMetrics(metrics.metrics());
      if (partition != null) {
        b.withPartition(partition);
      }
      files.add(b.build());
      rows += metrics.rows();
    } finally {
      batches.forEach(VectorSchemaRoot::close);
      batches.clear();
    }
  }

  /** The Iceberg spec the files are partitioned by. */
  PartitionSpec spec() {
    return spec;
  }

  /** The files written. */
  List<DataFile> files() {
    return List.copyOf(files);
  }

  /** The rows written. */
  long rows() {
    return rows;
  }

  /** Deletes the files written (best effort): they were never committed. */
  void abort() {
    for (String location : written) {
      try {
        io.deleteFile(location);
      } catch (RuntimeException e) {
        // Best effort: an unreferenced file is garbage, never data.
      }
    }
  }

  @Override
  public void close() {
    unpartitioned.forEach(VectorSchemaRoot::close);
    unpartitioned.clear();
    if (held != null) {
      held.values().forEach(l -> l.forEach(VectorSchemaRoot::close));
      held.clear();
    }
    allocator.close();
  }

  /** Held batches as a reader: each batch's buffers move into the reader's batch in turn. */
  private static final class BatchReader extends ArrowReader {
    private final Schema schema;
    private final List<VectorSchemaRoot> batches;
    private int next;

    BatchReader(BufferAllocator allocator, Schema schema, List<VectorSchemaRoot> batches) {
      super(allocator);
      this.schema = schema;
      this.batches = batches;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      if (next >= batches.size()) {
        return false;
      }
      VectorSchemaRoot from = batches.get(next++);
      VectorSchemaRoot to = getVectorSchemaRoot();
      for (int c = 0; c < schema.getFields().size(); c++) {
        from.getVector(c).makeTransferPair(to.getVector(c)).transfer();
      }
      to.setRowCount(from.getRowCount());
      return true;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {}

    @Override
    protected Schema readSchema() {
      return schema;
    }
  }
}
