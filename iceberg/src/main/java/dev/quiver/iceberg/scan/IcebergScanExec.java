package dev.quiver.iceberg.scan;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.SplitSource;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Take;
import dev.quiver.binding.physical.scan.FileScanExec;
import dev.quiver.iceberg.io.QuiverFileIO;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads an Iceberg table's data files, split by split, with their deletes applied: each partition
 * reads its own {@link IcebergSplit}s (so on a cluster every executor opens its files itself, local
 * or in S3, with the job's store settings), maps the file's columns to the table's by field id
 * ({@link FileColumns}), drops the rows its position deletes, deletion vectors and equality deletes
 * name ({@link DeleteLoader}), and returns the projected columns. The planner's filter above the
 * scan applies the query's predicates to the rows read.
 */
public final class IcebergScanExec extends FileScanExec {
  private final String table;
  private final int[] fieldIds;
  private final List<List<IcebergSplit>> partitionSplits;

  /** Every partition's splits in order: the scan's split numbering. */
  private final List<IcebergSplit> splits;

  private final int[] splitOffsets;

  /**
   * Creates the scan.
   *
   * @param table the table's name or location, for messages
   * @param tableSchema the table's columns in the engine's types
   * @param fieldIds each column's Iceberg field id
   * @param partitionSplits what each partition reads (at least one partition)
   * @param projection indices of the columns returned; null for all
   * @param limit rows each partition needs at most
   * @param batchSize rows per batch
   */
  public IcebergScanExec(
      String table,
      Schema tableSchema,
      int[] fieldIds,
      List<List<IcebergSplit>> partitionSplits,
      int[] projection,
      OptionalLong limit,
      int batchSize) {
    super(
        tableSchema,
        partitionSplits.stream()
            .map(
                splits ->
                    splits.stream()
                        .map(s -> QuiverFileIO.storeLocation(s.path()))
                        .distinct()
                        .toList())
            .toList(),
        projection,
        limit,
        batchSize);
    if (fieldIds.length != tableSchema.getFields().size()) {
      throw new IllegalArgumentException(
          "Iceberg scan of " + table + ": " + fieldIds.length + " field ids for " + tableSchema);
    }
    this.table = table;
    this.fieldIds = fieldIds.clone();
    this.partitionSplits = partitionSplits.stream().map(List::copyOf).toList();
    this.splits = this.partitionSplits.stream().flatMap(List::stream).toList();
    this.splitOffsets = offsets(this.partitionSplits.stream().mapToInt(List::size).toArray());
  }

  @Override
  protected int[] splitOffsets() {
    return splitOffsets;
  }

  @Override
  public long splitBytes(int split) {
    return splits.get(split).length();
  }

  /** The table's name or location. */
  public String table() {
    return table;
  }

  /** Each table column's Iceberg field id. */
  public int[] fieldIds() {
    return fieldIds.clone();
  }

  /** What each partition reads. */
  public List<List<IcebergSplit>> partitionSplits() {
    return partitionSplits;
  }

  /** The data files' sizes from the table's manifests (delete files are not counted). */
  @Override
  public Map<String, Long> listedFileBytes() {
    Map<String, Long> sizes = new LinkedHashMap<>();
    for (List<IcebergSplit> partition : partitionSplits) {
      for (IcebergSplit split : partition) {
        sizes.put(split.path(), split.fileSize());
      }
    }
    return sizes;
  }

  @Override
  public String name() {
    return "IcebergScanExec";
  }

  @Override
  protected String fileCountDetail() {
    long deletes =
        partitionSplits.stream()
            .flatMap(List::stream)
            .flatMap(s -> s.deletes().stream())
            .map(DeleteRef::path)
            .distinct()
            .count();
    return "table="
        + table
        + ", files="
        + fileCount()
        + (deletes > 0 ? ", delete files=" + deletes : "");
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new IcebergStream(splitSource(partition, context), context);
  }

  /** One partition: its splits in order. */
  private final class IcebergStream implements BatchStream {
    private final SplitSource source;
    private final TaskContext context;
    private final BufferAllocator allocator;
    private final DeleteLoader deletes;
    private final int[] outputColumns;
    private FileColumns file;
    private long[] deleted;
    private List<DeleteLoader.EqualityDeletes> equality;

    /** For the open file: each needed column's index in the reader's targets. */
    private Map<Integer, Integer> slotByColumn;

    private long remaining = limit().orElse(Long.MAX_VALUE);

    IcebergStream(SplitSource source, TaskContext context) {
      this.source = source;
      this.context = context;
      this.allocator = context.allocator();
      Map<Integer, Field> byId = new HashMap<>();
      List<Field> fields = tableSchema().getFields();
      for (int i = 0; i < fields.size(); i++) {
        byId.put(fieldIds[i], fields.get(i));
      }
      this.deletes = new DeleteLoader(byId, table, context, batchSize());
      int[] p = projection();
      this.outputColumns =
          p != null ? p : java.util.stream.IntStream.range(0, fields.size()).toArray();
    }

    @Override
    public Schema schema() {
      return IcebergScanExec.this.schema();
    }

    @Override
    public VectorSchemaRoot next() {
      while (remaining > 0) {
        if (file == null && !open()) {
          return null;
        }
        FileColumns.Batch batch = file.next();
        if (batch == null) {
          file.close();
          file = null;
          continue;
        }
        VectorSchemaRoot out = apply(batch);
        if (out == null) {
          continue;
        }
        if (out.getRowCount() > remaining) {
          VectorSchemaRoot cut = Batches.slice(out, 0, (int) remaining, allocator);
          out.close();
          out = cut;
        }
        remaining -= out.getRowCount();
        return out;
      }
      return null;
    }

    /** Opens the next split; false when none is left. */
    private boolean open() {
      int next = source.next();
      if (next < 0) {
        return false;
      }
      IcebergSplit split = splits.get(next);
      deleted = deletes.deletedPositions(split);
      equality = deletes.equalityDeletes(split);
      Map<Integer, Integer> slots = new LinkedHashMap<>();
      for (int c : outputColumns) {
        slots.putIfAbsent(c, slots.size());
      }
      for (DeleteLoader.EqualityDeletes e : equality) {
        for (int id : e.fieldIds()) {
          slots.putIfAbsent(columnOf(id), slots.size());
        }
      }
      List<Field> targets = new ArrayList<>();
      int[] ids = new int[slots.size()];
      for (Map.Entry<Integer, Integer> s : slots.entrySet()) {
        targets.add(tableSchema().getFields().get(s.getKey()));
        ids[s.getValue()] = fieldIds[s.getKey()];
      }
      slotByColumn = slots;
      file =
          new FileColumns(
              split.path(),
              split.fileSize(),
              split.start(),
              split.length(),
              targets,
              ids,
              table,
              context,
              batchSize());
      return true;
    }

    private int columnOf(int fieldId) {
      for (int i = 0; i < fieldIds.length; i++) {
        if (fieldIds[i] == fieldId) {
          return i;
        }
      }
      throw new IllegalStateException("No column with field id " + fieldId + " in " + table);
    }

    /** The batch's projected columns less its deleted rows; null when every row is deleted. */
    private VectorSchemaRoot apply(FileColumns.Batch batch) {
      try (VectorSchemaRoot read = batch.columns()) {
        int n = read.getRowCount();
        int[] kept = new int[n];
        int count = 0;
        int d = lowerBound(deleted, batch.firstPosition());
        List<List<FieldVector>> keyColumns = new ArrayList<>();
        for (DeleteLoader.EqualityDeletes e : equality) {
          List<FieldVector> vs = new ArrayList<>();
          for (int id : e.fieldIds()) {
            vs.add(read.getVector(slotByColumn.get(columnOf(id))));
          }
          keyColumns.add(vs);
        }
        for (int i = 0; i < n; i++) {
          long pos = batch.firstPosition() + i;
          while (d < deleted.length && deleted[d] < pos) {
            d++;
          }
          if (d < deleted.length && deleted[d] == pos) {
            continue;
          }
          boolean drop = false;
          for (int k = 0; k < equality.size() && !drop; k++) {
            drop = equality.get(k).keys().contains(DeleteLoader.key(keyColumns.get(k), i));
          }
          if (!drop) {
            kept[count++] = i;
          }
        }
        if (count == 0) {
          return null;
        }
        List<FieldVector> out = new ArrayList<>(outputColumns.length);
        try {
          for (int c : outputColumns) {
            FieldVector v = read.getVector(slotByColumn.get(c));
            if (count == n) {
              // A copy that shares the buffers: a column projected twice gets two vectors.
              org.apache.arrow.vector.util.TransferPair pair = v.getTransferPair(allocator);
              pair.splitAndTransfer(0, n);
              out.add((FieldVector) pair.getTo());
            } else {
              out.add(Take.take(v, kept, count, allocator));
            }
          }
        } catch (RuntimeException e) {
          out.forEach(FieldVector::close);
          throw e;
        }
        return new VectorSchemaRoot(IcebergScanExec.this.schema().getFields(), out, count);
      }
    }

    @Override
    public void close() {
      try (SplitSource s = source) {
        if (file != null) {
          FileColumns f = file;
          file = null;
          f.close();
        }
      }
    }
  }

  private static int lowerBound(long[] sorted, long value) {
    int i = Arrays.binarySearch(sorted, value);
    if (i < 0) {
      return -i - 1;
    }
    while (i > 0 && sorted[i - 1] == value) {
      i--;
    }
    return i;
  }
}
