package dev.quiver.binding.physical.scan;

import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.SplitSource;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Reads Parquet files. Each partition reads its own list of splits (handed out as single row groups
 * and whole files, see {@link FileScanExec}; adjacent row groups at hand are read as one range)
 * with Quiver's {@link ParquetRowGroupReader}, which reads files in object stores through range
 * reads. Only the projected columns are decoded, batches have at most {@code batchSize} rows, and a
 * pushed-down limit stops the partition early. Batches are decoded straight into the query's
 * allocator in the engine's internal types.
 */
public final class ParquetScanExec extends FileScanExec {
  private final List<List<ParquetSplit>> partitionSplits;

  /** The scan's splits as handed out: a range of row groups becomes one split per row group. */
  private final List<ParquetSplit> units;

  private final int[] unitOffsets;
  private final int filesBeforePruning;
  private final int partitionColumns;

  /** The projected columns read from files (the output less partition columns). */
  private final Schema fileOutput;

  /** For each output column, its index among the partition columns, or -1 for a file column. */
  private final int[] partitionSlot;

  /**
   * The predicate of the filter right above, evaluated while reading (late materialization) when
   * {@link BindingSettings#PARQUET_LATE_MATERIALIZATION} is on; null when there is none.
   */
  private final PhysicalExpr filter;

  /**
   * Creates the scan.
   *
   * @param tableSchema the table's schema in internal types
   * @param partitionFiles absolute file paths read by each partition (at least one partition)
   * @param projection indices into {@code tableSchema} of the columns returned; null = all
   * @param limit rows each partition needs at most
   * @param batchSize rows per batch
   */
  public ParquetScanExec(
      Schema tableSchema,
      List<List<String>> partitionFiles,
      int[] projection,
      OptionalLong limit,
      int batchSize) {
    this(tableSchema, partitionFiles, projection, limit, batchSize, -1);
  }

  /**
   * Creates the scan after pruning by statistics.
   *
   * @param filesBeforePruning files the table would have read without filters; -1 when no pruning
   *     was attempted
   */
  public ParquetScanExec(
      Schema tableSchema,
      List<List<String>> partitionFiles,
      int[] projection,
      OptionalLong limit,
      int batchSize,
      int filesBeforePruning) {
    this(
        tableSchema,
        partitionFiles,
        partitionFiles.stream()
            .map(files -> files.stream().map(ParquetSplit::wholeFile).toList())
            .toList(),
        projection,
        limit,
        batchSize,
        filesBeforePruning,
        0,
        null);
  }

  private ParquetScanExec(
      Schema tableSchema,
      List<List<String>> partitionFiles,
      List<List<ParquetSplit>> partitionSplits,
      int[] projection,
      OptionalLong limit,
      int batchSize,
      int filesBeforePruning,
      int partitionColumns,
      PhysicalExpr filter) {
    super(tableSchema, partitionFiles, projection, limit, batchSize);
    this.filter = filter;
    this.partitionSplits = partitionSplits.stream().map(List::copyOf).toList();
    List<ParquetSplit> flat = new ArrayList<>();
    int[] counts = new int[this.partitionSplits.size()];
    for (int p = 0; p < counts.length; p++) {
      int before = flat.size();
      for (ParquetSplit split : this.partitionSplits.get(p)) {
        if (split.rowGroupCount() > 1) {
          for (int g = 0; g < split.rowGroupCount(); g++) {
            flat.add(rowGroupsOf(split, split.firstRowGroup() + g, 1));
          }
        } else {
          flat.add(split);
        }
      }
      counts[p] = flat.size() - before;
    }
    this.units = List.copyOf(flat);
    this.unitOffsets = offsets(counts);
    this.filesBeforePruning = filesBeforePruning;
    int fileColumns = tableSchema.getFields().size() - partitionColumns;
    if (partitionColumns < 0 || fileColumns < 0) {
      throw new IllegalArgumentException(
          "Invalid partition column count " + partitionColumns + " for " + tableSchema);
    }
    this.partitionColumns = partitionColumns;
    int n = schema().getFields().size();
    this.partitionSlot = new int[n];
    List<Field> fromFiles = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int tableIndex = projection == null ? i : projection[i];
      partitionSlot[i] = tableIndex >= fileColumns ? tableIndex - fileColumns : -1;
      if (partitionSlot[i] < 0) {
        fromFiles.add(schema().getFields().get(i));
      }
    }
    this.fileOutput = new Schema(fromFiles);
    for (List<ParquetSplit> splits : this.partitionSplits) {
      for (ParquetSplit split : splits) {
        if (split.partitionValues().size() != partitionColumns) {
          throw new IllegalArgumentException(
              "Split "
                  + split
                  + " has "
                  + split.partitionValues().size()
                  + " partition values; the table has "
                  + partitionColumns
                  + " partition columns");
        }
      }
    }
  }

  /**
   * Creates a scan whose partitions read whole files or ranges of row groups.
   *
   * @param partitionSplits what each partition reads (at least one partition)
   * @param filesBeforePruning files the table would have read without filters; -1 when no pruning
   *     was attempted
   */
  public static ParquetScanExec ofSplits(
      Schema tableSchema,
      List<List<ParquetSplit>> partitionSplits,
      int[] projection,
      OptionalLong limit,
      int batchSize,
      int filesBeforePruning) {
    return ofSplits(
        tableSchema, partitionSplits, projection, limit, batchSize, filesBeforePruning, 0);
  }

  /**
   * Creates a scan of a table whose last {@code partitionColumns} columns are not in its files but
   * come from each split's partition values (Hive folders).
   */
  public static ParquetScanExec ofSplits(
      Schema tableSchema,
      List<List<ParquetSplit>> partitionSplits,
      int[] projection,
      OptionalLong limit,
      int batchSize,
      int filesBeforePruning,
      int partitionColumns) {
    return new ParquetScanExec(
        tableSchema,
        partitionSplits.stream()
            .map(splits -> splits.stream().map(ParquetSplit::path).distinct().toList())
            .toList(),
        partitionSplits,
        projection,
        limit,
        batchSize,
        filesBeforePruning,
        partitionColumns,
        null);
  }

  /**
   * This scan evaluating {@code predicate}, the condition of the filter right above it, while it
   * reads (see {@link #filter}); null when it cannot: with a limit (which counts rows before the
   * filter) or partition columns in its output.
   */
  public ParquetScanExec withFilter(PhysicalExpr predicate) {
    if (predicate.equals(filter)) {
      return this;
    }
    // A filter already here is replaced: the filter above is the one that says what to keep.
    if (limit().isPresent() || fileOutput.getFields().size() != partitionSlot.length) {
      return null;
    }
    ParquetScanExec filtered =
        new ParquetScanExec(
            tableSchema(),
            partitionFiles(),
            partitionSplits,
            projection(),
            limit(),
            batchSize(),
            filesBeforePruning,
            partitionColumns,
            predicate);
    // The copy reads the same table: plans keep naming it.
    filtered.nameTable(tableName());
    return filtered;
  }

  /**
   * The filter this scan evaluates while reading, when {@code config} turns late materialization
   * on; null otherwise. Its output then holds only the rows the filter keeps.
   */
  public PhysicalExpr filter(SessionConfig config) {
    return filter != null && config.get(BindingSettings.PARQUET_LATE_MATERIALIZATION)
        ? filter
        : null;
  }

  /** How many of the table's last columns come from partition folders rather than files. */
  public int partitionColumns() {
    return partitionColumns;
  }

  private static ParquetSplit rowGroupsOf(ParquetSplit split, int first, int count) {
    return ParquetSplit.rowGroups(split.path(), first, count, split.fileSize())
        .withPartitionValues(split.partitionValues())
        .withVersion(split.version());
  }

  @Override
  protected int[] splitOffsets() {
    return unitOffsets;
  }

  /** Split {@code split} of the scan's numbering: one row group or a whole file. */
  public ParquetSplit split(int split) {
    return units.get(split);
  }

  @Override
  public long splitBytes(int split) {
    return -1;
  }

  /** What each partition reads: whole files or ranges of their row groups. */
  public List<List<ParquetSplit>> partitionSplits() {
    return partitionSplits;
  }

  @Override
  public Map<String, Long> listedFileBytes() {
    Map<String, Long> sizes = new LinkedHashMap<>();
    for (List<ParquetSplit> partition : partitionSplits()) {
      for (ParquetSplit split : partition) {
        if (split.fileSize() >= 0) {
          sizes.put(split.path(), split.fileSize());
        }
      }
    }
    return sizes;
  }

  /** Distinct files read over all partitions (a file split by row groups counts once). */
  @Override
  public int fileCount() {
    return (int)
        partitionSplits.stream().flatMap(List::stream).map(ParquetSplit::path).distinct().count();
  }

  /** Files the table would have read without filters, or -1 when no pruning was attempted. */
  public int filesBeforePruning() {
    return filesBeforePruning;
  }

  /** Files dropped because their statistics prove no row matches the filters. */
  public int prunedFiles() {
    return filesBeforePruning < 0 ? 0 : filesBeforePruning - fileCount();
  }

  @Override
  protected String fileCountDetail() {
    return filesBeforePruning < 0 || prunedFiles() == 0
        ? super.fileCountDetail()
        : "files=" + fileCount() + "/" + filesBeforePruning + " after pruning";
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new ParquetStream(splitSource(partition, context), context);
  }

  @Override
  protected String partitionListing() {
    List<String> names = partitionSplits.stream().map(List::toString).toList();
    String shown = names.toString();
    if (shown.length() > 200) {
      shown = shown.substring(0, 200) + "...";
    }
    return " " + shown;
  }

  /**
   * One partition: its splits in the order its source hands them out; adjacent row groups of a file
   * at hand are read as one range.
   */
  private final class ParquetStream implements BatchStream {
    private final SplitSource splits;
    private final BufferAllocator allocator;
    private final TaskContext context;
    private Source current;
    private ParquetSplit currentSplit;

    /** A run taken that the current source could not go on with, read next. */
    private List<ParquetSplit> pending;

    private boolean done;
    private long remaining = limit().orElse(Long.MAX_VALUE);

    ParquetStream(SplitSource splits, TaskContext context) {
      this.splits = splits;
      this.allocator = context.allocator();
      this.context = context;
      this.done = remaining <= 0;
    }

    /** The next run of splits read by one source, or null when the partition has read all. */
    private List<ParquetSplit> nextRun() {
      int first = splits.next();
      if (first < 0) {
        return null;
      }
      ParquetSplit head = units.get(first);
      List<ParquetSplit> run = new ArrayList<>(List.of(head));
      int at;
      while ((at = splits.peekAtHand()) >= 0) {
        ParquetSplit next = units.get(at);
        ParquetSplit last = run.get(run.size() - 1);
        if (!head.isWholeFile()
            && !next.isWholeFile()
            && last.path().equals(next.path())
            && last.firstRowGroup() + last.rowGroupCount() == next.firstRowGroup()) {
          run.set(
              0,
              rowGroupsOf(last, last.firstRowGroup(), last.rowGroupCount() + next.rowGroupCount()));
        } else {
          break;
        }
        splits.takeAtHand();
      }
      return run;
    }

    @Override
    public Schema schema() {
      return ParquetScanExec.this.schema();
    }

    @Override
    public VectorSchemaRoot next() {
      while (!done) {
        if (current == null) {
          List<ParquetSplit> run = pending != null ? pending : nextRun();
          pending = null;
          if (run == null) {
            done = true;
            return null;
          }
          ObjectStore store = ObjectStores.forLocation(run.get(0).path(), context.config());
          currentSplit = run.get(0);
          current = new RowGroupSource(store, run.get(0), allocator, context.config());
        }
        VectorSchemaRoot batch = current.next();
        if (batch == null) {
          List<ParquetSplit> run = nextRun();
          if (run != null && current.continueWith(run)) {
            currentSplit = run.get(0);
            continue;
          }
          Source finished = current;
          current = null;
          finished.close();
          if (run == null) {
            done = true;
            return null;
          }
          pending = run;
          continue;
        }
        if (batch.getRowCount() == 0) {
          batch.close();
          continue;
        }
        return limitAndCheck(withPartitionColumns(batch), current.describe());
      }
      return null;
    }

    /** The batch read from a file with the projected partition columns put in their places. */
    private VectorSchemaRoot withPartitionColumns(VectorSchemaRoot fromFile) {
      if (fileOutput.getFields().size() == partitionSlot.length) {
        return fromFile;
      }
      int rows = fromFile.getRowCount();
      List<FieldVector> vectors = new ArrayList<>(partitionSlot.length);
      try {
        int next = 0;
        for (int i = 0; i < partitionSlot.length; i++) {
          if (partitionSlot[i] < 0) {
            FieldVector v = fromFile.getVector(next++);
            TransferPair pair = v.getTransferPair(allocator);
            pair.transfer();
            vectors.add((FieldVector) pair.getTo());
          } else {
            FieldVector v =
                ParquetScanExec.this.schema().getFields().get(i).createVector(allocator);
            vectors.add(v);
            v.setInitialCapacity(rows);
            v.allocateNew();
            PartitionValues.fill(v, currentSplit.partitionValues().get(partitionSlot[i]), rows);
          }
        }
      } catch (RuntimeException e) {
        vectors.forEach(FieldVector::close);
        throw e;
      } finally {
        fromFile.close();
      }
      return new VectorSchemaRoot(ParquetScanExec.this.schema().getFields(), vectors, rows);
    }

    /** Cuts the batch to the rows the limit still wants and enforces the allocator's limit. */
    private VectorSchemaRoot limitAndCheck(VectorSchemaRoot batch, String what) {
      Schema out = ParquetScanExec.this.schema();
      if (batch.getRowCount() > remaining) {
        VectorSchemaRoot cut = ScanBatches.slice(batch, null, 0, (int) remaining, allocator);
        batch.close();
        batch = Batches.withSchema(cut, out);
      }
      if (allocator.getHeadroom() < 0) {
        long held = allocator.getAllocatedMemory();
        batch.close();
        throw new dev.quiver.binding.errors.ResourcesExhaustedException(
            "Resources exhausted while reading "
                + what
                + ": the query holds "
                + held
                + " bytes, over its allocator limit of "
                + allocator.getLimit()
                + "; raise quiver.execution.memory_limit or read fewer columns");
      }
      remaining -= batch.getRowCount();
      if (remaining <= 0) {
        done = true;
      }
      return batch;
    }

    @Override
    public void close() {
      done = true;
      try {
        if (current != null) {
          Source open = current;
          current = null;
          open.close();
        }
      } finally {
        splits.close();
      }
    }
  }

  /** Where a partition's batches come from. */
  private interface Source extends AutoCloseable {
    /** The next batch in the scan's output schema and the query's allocator, or null at the end. */
    VectorSchemaRoot next();

    /** The files read, for error messages. */
    String describe();

    /** Whether this source, read to its end, goes on reading {@code run} (same file). */
    default boolean continueWith(List<ParquetSplit> run) {
      return false;
    }

    @Override
    void close();
  }

  /** Reads a row-group range of one file with {@link ParquetRowGroupReader}. */
  private final class RowGroupSource implements Source {
    private final ObjectStore store;
    private ParquetSplit split;
    private final BufferAllocator allocator;
    private ParquetRowGroupReader reader;
    private final SessionConfig config;

    RowGroupSource(
        ObjectStore store, ParquetSplit split, BufferAllocator allocator, SessionConfig config) {
      this.config = config;
      this.store = store;
      this.split = split;
      this.allocator = allocator;
    }

    @Override
    public VectorSchemaRoot next() {
      try {
        if (reader == null) {
          reader =
              new ParquetRowGroupReader(
                  store, split, fileOutput, allocator, batchSize(), filter(config));
        }
        return reader.next();
      } catch (OutOfMemoryException e) {
        throw ScanBatches.exhausted("reading " + describe(), e);
      }
    }

    @Override
    public String describe() {
      return "Parquet " + split + " (" + split.path() + ")";
    }

    @Override
    public boolean continueWith(List<ParquetSplit> run) {
      if (run.size() != 1 || reader == null || !reader.continueWith(run.get(0))) {
        return false;
      }
      split = run.get(0);
      return true;
    }

    @Override
    public void close() {
      if (reader != null) {
        ParquetRowGroupReader r = reader;
        reader = null;
        metrics().recordFetched(r.fetchedBytes());
        metrics().recordLateMaterialization(r.filteredRows(), r.skippedPages());
        r.close();
      }
    }
  }
}
