package dev.quiver.binding.physical.scan;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** A leaf scan whose partitions each read their own list of files, with projection and limit. */
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
