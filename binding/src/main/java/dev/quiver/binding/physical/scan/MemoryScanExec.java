package dev.quiver.binding.physical.scan;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Scans batches held in memory. The batches are borrowed from their owner (a memory table), which
 * must outlive every execution; each output batch is a reference-counted slice, so the owner's data
 * is never moved or copied for a whole-batch read.
 */
public final class MemoryScanExec extends BaseExecutionPlan {
  /** A row range of one source batch: the unit dealt to partitions. */
  public record Chunk(int batch, int offset, int length) {}

  private final Schema tableSchema;
  private final List<VectorSchemaRoot> batches;
  private final int[] projection;
  private final OptionalLong limit;
  private final List<List<Chunk>> partitions;

  /**
   * Creates a scan of {@code batches} (all with {@code tableSchema}) split over up to {@code
   * targetPartitions} partitions in chunks of at most {@code batchSize} rows.
   */
  public MemoryScanExec(
      Schema tableSchema,
      List<VectorSchemaRoot> batches,
      int[] projection,
      OptionalLong limit,
      int targetPartitions,
      int batchSize) {
    super(project(tableSchema, projection), List.of());
    this.tableSchema = tableSchema;
    this.batches = List.copyOf(batches);
    this.projection = projection == null ? null : projection.clone();
    this.limit = limit;
    this.partitions =
        assign(chunks(this.batches, targetPartitions, batchSize, limit), targetPartitions);
  }

  /**
   * Creates a scan that reads exactly {@code partitionChunks} of {@code batches}: rebuilds a scan
   * elsewhere (e.g. after a plan codec shipped it) with the same partitions.
   */
  public MemoryScanExec(
      Schema tableSchema,
      List<VectorSchemaRoot> batches,
      int[] projection,
      OptionalLong limit,
      List<List<Chunk>> partitionChunks) {
    super(project(tableSchema, projection), List.of());
    if (partitionChunks.isEmpty()) {
      throw new IllegalArgumentException("MemoryScanExec needs at least one partition");
    }
    for (List<Chunk> part : partitionChunks) {
      for (Chunk c : part) {
        if (c.batch() < 0
            || c.batch() >= batches.size()
            || c.offset() < 0
            || c.length() < 0
            || (long) c.offset() + c.length() > batches.get(c.batch()).getRowCount()) {
          throw new IllegalArgumentException(
              "chunk " + c + " is outside the " + batches.size() + " batches of the scan");
        }
      }
    }
    this.tableSchema = tableSchema;
    this.batches = List.copyOf(batches);
    this.projection = projection == null ? null : projection.clone();
    this.limit = limit;
    this.partitions = partitionChunks.stream().map(List::copyOf).toList();
  }

  /** The output schema of a scan of {@code schema} with {@code projection} (null = all columns). */
  public static Schema project(Schema schema, int[] projection) {
    if (projection == null) {
      return schema;
    }
    List<Field> fields = new ArrayList<>(projection.length);
    for (int i : projection) {
      fields.add(schema.getFields().get(i));
    }
    return new Schema(fields);
  }

  private static List<Chunk> chunks(
      List<VectorSchemaRoot> batches, int targetPartitions, int batchSize, OptionalLong limit) {
    List<Chunk> chunks = new ArrayList<>();
    int nonEmpty = (int) batches.stream().filter(b -> b.getRowCount() > 0).count();
    // Few large batches would leave partitions idle: cut each into enough pieces to feed them all.
    int piecesPerBatch = nonEmpty == 0 ? 1 : (targetPartitions + nonEmpty - 1) / nonEmpty;
    long remaining = limit.orElse(Long.MAX_VALUE);
    for (int b = 0; b < batches.size() && remaining > 0; b++) {
      int rows = batches.get(b).getRowCount();
      if (rows == 0) {
        continue;
      }
      int pieces = Math.max(Math.min(piecesPerBatch, rows), (rows + batchSize - 1) / batchSize);
      int size = (rows + pieces - 1) / pieces;
      for (int offset = 0; offset < rows && remaining > 0; offset += size) {
        int length = Math.min(size, rows - offset);
        chunks.add(new Chunk(b, offset, length));
        remaining -= length;
      }
    }
    return chunks;
  }

  private static List<List<Chunk>> assign(List<Chunk> chunks, int targetPartitions) {
    int n = Math.max(1, Math.min(targetPartitions, chunks.size()));
    List<List<Chunk>> parts = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      parts.add(new ArrayList<>());
    }
    for (int i = 0; i < chunks.size(); i++) {
      parts.get(i % n).add(chunks.get(i));
    }
    return parts.stream().map(List::copyOf).toList();
  }

  /** The schema of the scanned batches, before projection. */
  public Schema tableSchema() {
    return tableSchema;
  }

  /** The scanned batches (borrowed from their owner; do not close). */
  public List<VectorSchemaRoot> batches() {
    return batches;
  }

  /** The chunks read by each partition. */
  public List<List<Chunk>> partitionChunks() {
    return partitions;
  }

  /** Indices of the table columns returned, or null for all. */
  public int[] projection() {
    return projection == null ? null : projection.clone();
  }

  /** The row limit pushed into the scan, if any. */
  public OptionalLong limit() {
    return limit;
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.unknown(partitions.size());
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (!children.isEmpty()) {
      throw new IllegalArgumentException("MemoryScanExec has no children; got " + children.size());
    }
    return this;
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    List<Chunk> mine = partitions.get(partition);
    return new BatchStream() {
      private int next;
      private long remaining = limit.orElse(Long.MAX_VALUE);

      @Override
      public Schema schema() {
        return MemoryScanExec.this.schema();
      }

      @Override
      public VectorSchemaRoot next() {
        if (next >= mine.size() || remaining <= 0) {
          return null;
        }
        Chunk c = mine.get(next++);
        int length = (int) Math.min(c.length(), remaining);
        remaining -= length;
        return ScanBatches.slice(
            batches.get(c.batch()), projection, c.offset(), length, context.allocator());
      }

      @Override
      public void close() {
        next = mine.size();
      }
    };
  }

  @Override
  public String displayDetails() {
    long rows = partitions.stream().flatMap(List::stream).mapToLong(Chunk::length).sum();
    return "partitions="
        + partitions.size()
        + ", rows="
        + rows
        + (projection == null ? "" : ", projection=" + Arrays.toString(projection))
        + (limit.isPresent() ? ", limit=" + limit.getAsLong() : "");
  }
}
