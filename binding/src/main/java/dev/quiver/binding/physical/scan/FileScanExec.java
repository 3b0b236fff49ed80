package dev.quiver.binding.physical.scan;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.SplitSource;
import dev.quiver.binding.physical.TaskContext;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A leaf scan whose partitions each read their own list of files, with projection and limit. What
 * the partitions read is cut into splits (a file, or a row group of one), numbered over the whole
 * scan partition by partition; a partition reads the splits its {@link SplitSource} hands it, by
 * default those planned for it ({@link #plannedSplits}).
 */
public abstract class FileScanExec extends BaseExecutionPlan {
  private final Schema tableSchema;
  private final List<List<String>> partitionFiles;
  private final int[] projection;
  private final OptionalLong limit;
  private final int batchSize;

  protected FileScanExec(
      Schema tableSchema,
      List<List<String>> partitionFiles,
      int[] projection,
      OptionalLong limit,
      int batchSize) {
    super(MemoryScanExec.project(tableSchema, projection), List.of());
    if (partitionFiles.isEmpty()) {
      throw new IllegalArgumentException(
          getClass().getSimpleName() + " needs at least one partition");
    }
    this.tableSchema = tableSchema;
    this.partitionFiles = partitionFiles.stream().map(List::copyOf).toList();
    this.projection = projection == null ? null : projection.clone();
    this.limit = limit;
    this.batchSize = batchSize;
  }

  /** The columns of every file, in file order. */
  public Schema tableSchema() {
    return tableSchema;
  }

  /** Files read by each partition. */
  public List<List<String>> partitionFiles() {
    return partitionFiles;
  }

  /** Indices of the table columns returned, or null for all. */
  public int[] projection() {
    return projection == null ? null : projection.clone();
  }

  /** Rows each partition needs at most, if limited. */
  public OptionalLong limit() {
    return limit;
  }

  /** Rows per batch. */
  public int batchSize() {
    return batchSize;
  }

  /**
   * Where each partition's splits start in the scan's numbering, and the split count last: {@code
   * partitionCount() + 1} non-decreasing offsets from 0.
   */
  protected abstract int[] splitOffsets();

  /** Splits over all partitions. */
  public int splitCount() {
    int[] offsets = splitOffsets();
    return offsets[offsets.length - 1];
  }

  /** The splits partition {@code partition} reads as planned, in order. */
  public int[] plannedSplits(int partition) {
    int[] offsets = splitOffsets();
    int[] out = new int[offsets[partition + 1] - offsets[partition]];
    for (int i = 0; i < out.length; i++) {
      out[i] = offsets[partition] + i;
    }
    return out;
  }

  /** Bytes split {@code split} reads, or -1 when unknown (to balance work handed out). */
  public abstract long splitBytes(int split);

  /** Opens the source of partition {@code partition}'s splits in {@code context}. */
  protected final SplitSource splitSource(int partition, TaskContext context) {
    return context.splitSources().open(this, partition, plannedSplits(partition));
  }

  /** {@code counts} (splits per partition) as {@link #splitOffsets()}. */
  protected static int[] offsets(int[] counts) {
    int[] out = new int[counts.length + 1];
    for (int i = 0; i < counts.length; i++) {
      out[i + 1] = out[i] + counts[i];
    }
    return out;
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.unknown(partitionFiles.size());
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (!children.isEmpty()) {
      throw new IllegalArgumentException(
          getClass().getSimpleName() + " has no children; got " + children.size());
    }
    return this;
  }

  @Override
  public String displayDetails() {
    return fileCountDetail()
        + ", partitions="
        + partitionFiles.size()
        + partitionListing()
        + ", projection="
        + schema().getFields().stream().map(Field::getName).toList()
        + (limit.isPresent() ? ", limit=" + limit.getAsLong() : "");
  }

  /**
   * The size in bytes of each file the scan reads, as listed when it was planned (a file whose size
   * was not listed is absent). The distributed planner sizes its tasks from these, so that objects
   * in a store are counted without a request for each.
   */
  public abstract Map<String, Long> listedFileBytes();

  /** Files read over all partitions. */
  public int fileCount() {
    return partitionFiles.stream().mapToInt(List::size).sum();
  }

  /** The file count shown first in {@link #displayDetails()}. */
  protected String fileCountDetail() {
    return "files=" + fileCount();
  }

  /** Text shown after the partition count in {@link #displayDetails()}; empty by default. */
  protected String partitionListing() {
    return "";
  }
}
