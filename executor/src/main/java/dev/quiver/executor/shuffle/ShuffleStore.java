package dev.quiver.executor.shuffle;

import com.google.protobuf.ByteString;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.security.JobCapabilities;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import dev.quiver.distributed.wire.ShuffleTickets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shuffle output held by an executor: Arrow batches per job, stage, task and output partition, kept
 * in memory and spilled to the work directory as Arrow IPC files when over a byte budget. A
 * partition is readable once completed. Thread-safe.
 */
public final class ShuffleStore implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ShuffleStore.class);

  /** What {@link #removeJob} released. */
  public record Removed(int partitions, long bytes) {}

  /** A job whose output {@link #expire} deleted. */
  public record Expired(String jobId, Removed removed) {}

  /** Whether a DoGet may read a job's output, as {@link #access} decides. */
  public enum Access {
    /** The presented capability is the job's. */
    GRANTED,
    /** The job's tasks ran here with another capability. */
    DENIED,
    /** No task of the job was launched here (or its data was removed): there is nothing to read. */
    UNKNOWN
  }

  /** One output partition: spill files first, then the batches appended since the last spill. */
  private static final class Partition {
    final Schema schema;
    final List<Path> files = new ArrayList<>();
    final List<VectorSchemaRoot> memory = new ArrayList<>();
    long memoryBytes;
    long diskBytes;
    boolean complete;

    /** How the partition is served; null for the executor's default. */
    ShuffleCompression compression;

    Partition(Schema schema) {
      this.schema = schema;
    }
  }

  private final BufferAllocator allocator;
  private final Path spillDir;
  private final long memoryBudget;
  private final long diskLimit;
  private final LongSupplier otherDiskBytes;
  private final Map<ShufflePartitionId, Partition> partitions = new HashMap<>();

  /** The capability each job's tasks were launched with; DoGets of its output must carry it. */
  private final Map<String, ByteString> capabilities = new HashMap<>();

  /** When each job's output was last written or opened for reading (System.nanoTime). */
  private final Map<String, Long> lastTouched = new HashMap<>();

  /**
   * Jobs the scheduler no longer knows (it restarted): when their output is deleted unless a client
   * reads it again before (System.nanoTime).
   */
  private final Map<String, Long> orphanedUntil = new HashMap<>();

  private long orphanGraceNanos;
  private long diskBytes;
  private long spillFiles;
  private long spilledTotal;
  private boolean closed;

  /**
   * Creates a store.
   *
   * @param parent allocator the store's child allocator comes from
   * @param workDir directory under which spill files go (a fresh subdirectory per store)
   * @param memoryBudgetBytes bytes of batches kept in memory before spilling to disk
   */
  public ShuffleStore(BufferAllocator parent, Path workDir, long memoryBudgetBytes)
      throws IOException {
    this(parent, workDir, memoryBudgetBytes, Long.MAX_VALUE, () -> 0);
  }

  /**
   * Creates a store whose spill files, together with {@code otherDiskBytes} (the tasks' own spill
   * files), may take at most {@code diskLimitBytes}: a spill that would pass it fails with {@link
   * ResourcesExhaustedException} instead of filling the disk.
   */
  public ShuffleStore(
      BufferAllocator parent,
      Path workDir,
      long memoryBudgetBytes,
      long diskLimitBytes,
      LongSupplier otherDiskBytes)
      throws IOException {
    this.diskLimit = diskLimitBytes;
    this.otherDiskBytes = otherDiskBytes;
    if (memoryBudgetBytes < 0) {
      throw new IllegalArgumentException(
          "shuffle memory budget must be >= 0: " + memoryBudgetBytes);
    }
    Files.createDirectories(workDir);
    this.spillDir = Files.createTempDirectory(workDir, "shuffle-");
    this.allocator = parent.newChildAllocator("shuffle-store", 0, Long.MAX_VALUE);
    this.memoryBudget = memoryBudgetBytes;
  }

  /**
   * Adds a batch to a partition, taking over its buffers: the caller's batch is left empty (row
   * count 0) and still closed by the caller. Spills if the store goes over its budget.
   *
   * @throws IllegalStateException if the partition is already complete
   * @throws IllegalArgumentException if the batch's schema differs from the partition's
   * @throws ResourcesExhaustedException if the store is over budget and cannot spill
   */
  public synchronized void append(ShufflePartitionId id, VectorSchemaRoot batch) {
    ensureOpen();
    Partition p = partitionFor(id, batch.getSchema());
    if (batch.getRowCount() == 0) {
      batch.clear();
      return;
    }
    VectorSchemaRoot owned = takeOver(batch);
    p.memory.add(owned);
    p.memoryBytes += sizeOf(owned);
    spillWhileOverBudget();
  }

  /**
   * Makes a partition readable; a partition that got no batches becomes an empty one.
   *
   * @throws IllegalArgumentException if {@code schema} differs from the appended batches'
   */
  public synchronized void complete(ShufflePartitionId id, Schema schema) {
    complete(id, schema, null);
  }

  /**
   * Makes a partition readable, to be served with {@code compression} (null: the executor's
   * default).
   *
   * @throws IllegalArgumentException if {@code schema} differs from the appended batches'
   */
  public synchronized void complete(
      ShufflePartitionId id, Schema schema, ShuffleCompression compression) {
    ensureOpen();
    Partition p = partitionFor(id, schema);
    p.compression = compression;
    p.complete = true;
  }

  private Partition partitionFor(ShufflePartitionId id, Schema schema) {
    touch(id.getJobId());
    Partition p = partitions.get(id);
    if (p == null) {
      p = new Partition(schema);
      partitions.put(id, p);
      return p;
    }
    if (p.complete) {
      throw new IllegalStateException(
          ShuffleTickets.describe(id)
              + " is already complete; a retried task must write a new one");
    }
    if (!p.schema.equals(schema)) {
      throw new IllegalArgumentException(
          "batch for "
              + ShuffleTickets.describe(id)
              + " has schema "
              + schema
              + " but the partition has "
              + p.schema);
    }
    return p;
  }

  /** Moves a batch's buffers into a root owned by this store's allocator. */
  private VectorSchemaRoot takeOver(VectorSchemaRoot batch) {
    int rows = batch.getRowCount();
    List<FieldVector> vectors = new ArrayList<>(batch.getFieldVectors().size());
    for (FieldVector v : batch.getFieldVectors()) {
      TransferPair pair = v.getTransferPair(allocator);
      pair.transfer();
      vectors.add((FieldVector) pair.getTo());
    }
    batch.clear();
    return new VectorSchemaRoot(batch.getSchema(), vectors, rows);
  }

  private static long sizeOf(VectorSchemaRoot root) {
    long bytes = 0;
    for (FieldVector v : root.getFieldVectors()) {
      for (ArrowBuf buf : v.getBuffers(false)) {
        bytes += buf.capacity();
      }
    }
    return bytes;
  }

  private void spillWhileOverBudget() {
    while (allocator.getAllocatedMemory() > memoryBudget) {
      Map.Entry<ShufflePartitionId, Partition> victim =
          partitions.entrySet().stream()
              .filter(e -> !e.getValue().memory.isEmpty())
              .max(Comparator.comparingLong(e -> e.getValue().memoryBytes))
              .orElse(null);
      if (victim == null) {
        // Everything left in memory is held by readers still streaming it; they release it.
        return;
      }
      spill(victim.getKey(), victim.getValue());
    }
  }

  /** Writes a partition's in-memory batches to one Arrow IPC file and frees them. */
  private void spill(ShufflePartitionId id, Partition p) {
    long others = otherDiskBytes.getAsLong();
    if (diskBytes + others + p.memoryBytes > diskLimit) {
      throw new DiskLimitExceededException(
          "Resources exhausted: spilling "
              + p.memoryBytes
              + " bytes of "
              + ShuffleTickets.describe(id)
              + " would pass the executor's disk limit of "
              + diskLimit
              + " bytes (--disk-limit): shuffle files hold "
              + diskBytes
              + " bytes and tasks' spill files "
              + others
              + "; give the executors a larger --disk-limit or more --memory, or make the query"
              + " produce less (a LIMIT, a filter)");
    }
    Path file =
        spillDir.resolve(
            String.format(
                "s%d-t%d-p%d-%d.arrow",
                id.getStageId(), id.getTaskId(), id.getPartition(), ++spillFiles));
    try (FileChannel channel =
            FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        VectorSchemaRoot out = VectorSchemaRoot.create(p.schema, allocator);
        ArrowFileWriter writer = new ArrowFileWriter(out, null, channel)) {
      writer.start();
      VectorLoader loader = new VectorLoader(out);
      for (VectorSchemaRoot batch : p.memory) {
        try (ArrowRecordBatch rb = new VectorUnloader(batch).getRecordBatch()) {
          loader.load(rb);
        }
        writer.writeBatch();
      }
      writer.end();
    } catch (IOException | RuntimeException e) {
      deleteQuietly(file);
      throw new DiskLimitExceededException(
          "shuffle output is over its memory budget of "
              + memoryBudget
              + " bytes and spilling "
              + ShuffleTickets.describe(id)
              + " to "
              + spillDir
              + " failed ("
              + e.getMessage()
              + "); free disk space in the executor's work directory or give it more memory",
          e);
    }
    long size = sizeOfFile(file);
    long freed = p.memoryBytes;
    p.memory.forEach(VectorSchemaRoot::close);
    p.memory.clear();
    p.memoryBytes = 0;
    p.files.add(file);
    p.diskBytes += size;
    diskBytes += size;
    spilledTotal += size;
    LOG.debug("spilled {} ({} bytes in memory) to {}", ShuffleTickets.describe(id), freed, file);
  }

  /**
   * Opens a completed partition for reading; the reader sees the batches present now, even if the
   * job is removed while it reads from memory.
   *
   * @param readAllocator allocator for batches read back from disk; close the reader first
   * @return empty when the partition is unknown or not complete yet
   */
  public synchronized Optional<PartitionReader> open(
      ShufflePartitionId id, BufferAllocator readAllocator) {
    ensureOpen();
    Partition p = partitions.get(id);
    if (p == null || !p.complete) {
      return Optional.empty();
    }
    touch(id.getJobId());
    List<ArrowRecordBatch> inMemory = new ArrayList<>(p.memory.size());
    for (VectorSchemaRoot batch : p.memory) {
      inMemory.add(new VectorUnloader(batch).getRecordBatch());
    }
    return Optional.of(
        new PartitionReader(
            p.schema,
            List.copyOf(p.files),
            inMemory,
            readAllocator,
            Optional.ofNullable(p.compression)));
  }

  /**
   * Records the capability of job {@code jobId}, whose task is being launched here: its output is
   * served only to DoGets presenting it. The first capability of a job stays (the scheduler gives
   * all of a job's tasks the same one).
   */
  public synchronized void grant(String jobId, ByteString capability) {
    ensureOpen();
    if (capabilities.putIfAbsent(jobId, capability) == null) {
      // Swept by expire like output, so a job whose tasks wrote nothing is not remembered forever.
      touch(jobId);
    }
  }

  /** Whether {@code presented} lets a caller read job {@code jobId}'s output here. */
  public synchronized Access access(String jobId, ByteString presented) {
    ByteString expected = capabilities.get(jobId);
    if (expected == null) {
      return Access.UNKNOWN;
    }
    return JobCapabilities.matches(expected, presented) ? Access.GRANTED : Access.DENIED;
  }

  /**
   * Whether buffers of this store can be handed to vectors of {@code other} without a copy (Arrow
   * shares buffers only between allocators of one root).
   */
  public boolean sharesRootWith(BufferAllocator other) {
    return allocator.getRoot() == other.getRoot();
  }

  /** Whether a partition exists but its task has not completed it yet. */
  public synchronized boolean isWriting(ShufflePartitionId id) {
    Partition p = partitions.get(id);
    return p != null && !p.complete;
  }

  private void touch(String jobId) {
    long now = System.nanoTime();
    lastTouched.put(jobId, now);
    if (orphanedUntil.containsKey(jobId)) {
      orphanedUntil.put(jobId, now + orphanGraceNanos);
    }
  }

  /**
   * Marks every job's output as orphaned: the scheduler that ran the jobs restarted or declared
   * this executor lost, so no task will read it, but a client may still be reading a finished job's
   * result. It is deleted once nothing opened it for {@code grace}.
   *
   * @return how many jobs' output was marked
   */
  public synchronized int orphanAll(Duration grace) {
    ensureOpen();
    orphanGraceNanos = grace.toNanos();
    long until = System.nanoTime() + orphanGraceNanos;
    for (String jobId : lastTouched.keySet()) {
      orphanedUntil.put(jobId, until);
    }
    return lastTouched.size();
  }

  /**
   * Deletes the output of every job not written or opened for {@code ttl}, unless {@code busy} says
   * a task of the job still runs here: output a client abandoned without releasing it.
   */
  public synchronized List<Expired> expire(Duration ttl, Predicate<String> busy) {
    ensureOpen();
    long now = System.nanoTime();
    List<String> idle = new ArrayList<>();
    for (Map.Entry<String, Long> e : lastTouched.entrySet()) {
      Long orphanDeadline = orphanedUntil.get(e.getKey());
      boolean expired =
          now - e.getValue() >= ttl.toNanos() || (orphanDeadline != null && now >= orphanDeadline);
      if (expired && !busy.test(e.getKey())) {
        idle.add(e.getKey());
      }
    }
    List<Expired> out = new ArrayList<>();
    for (String jobId : idle) {
      Removed removed = removeJob(jobId);
      if (removed.partitions() > 0) {
        out.add(new Expired(jobId, removed));
      }
    }
    return out;
  }

  /** Deletes every partition of every job. */
  public synchronized Removed removeAll() {
    ensureOpen();
    int count = partitions.size();
    long bytes = 0;
    for (Partition p : partitions.values()) {
      bytes += p.memoryBytes + p.diskBytes;
      release(p);
    }
    partitions.clear();
    lastTouched.clear();
    orphanedUntil.clear();
    capabilities.clear();
    return new Removed(count, bytes);
  }

  /** Deletes every partition of a job, in memory and on disk. */
  public synchronized Removed removeJob(String jobId) {
    ensureOpen();
    lastTouched.remove(jobId);
    orphanedUntil.remove(jobId);
    capabilities.remove(jobId);
    int count = 0;
    long bytes = 0;
    Iterator<Map.Entry<ShufflePartitionId, Partition>> it = partitions.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<ShufflePartitionId, Partition> e = it.next();
      if (e.getKey().getJobId().equals(jobId)) {
        Partition p = e.getValue();
        bytes += p.memoryBytes + p.diskBytes;
        release(p);
        it.remove();
        count++;
      }
    }
    return new Removed(count, bytes);
  }

  /**
   * Deletes every output partition of one task (complete or being written): a retried task's
   * earlier output, or the partial output of a task that failed or was cancelled.
   */
  public synchronized Removed removeTask(String jobId, int stageId, int taskId) {
    ensureOpen();
    int count = 0;
    long bytes = 0;
    Iterator<Map.Entry<ShufflePartitionId, Partition>> it = partitions.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<ShufflePartitionId, Partition> e = it.next();
      if (isOfTask(e.getKey(), jobId, stageId, taskId)) {
        Partition p = e.getValue();
        bytes += p.memoryBytes + p.diskBytes;
        release(p);
        it.remove();
        count++;
      }
    }
    return new Removed(count, bytes);
  }

  /** Bytes of one task's output that were spilled to disk. */
  public synchronized long diskBytesOf(String jobId, int stageId, int taskId) {
    long bytes = 0;
    for (Map.Entry<ShufflePartitionId, Partition> e : partitions.entrySet()) {
      if (isOfTask(e.getKey(), jobId, stageId, taskId)) {
        bytes += e.getValue().diskBytes;
      }
    }
    return bytes;
  }

  private static boolean isOfTask(ShufflePartitionId id, String jobId, int stageId, int taskId) {
    return id.getTaskId() == taskId && id.getStageId() == stageId && id.getJobId().equals(jobId);
  }

  private void release(Partition p) {
    p.memory.forEach(VectorSchemaRoot::close);
    p.memory.clear();
    p.memoryBytes = 0;
    for (Path f : p.files) {
      deleteQuietly(f);
    }
    diskBytes -= p.diskBytes;
    p.diskBytes = 0;
    p.files.clear();
  }

  /** Bytes of batches held in memory. */
  public synchronized long memoryBytes() {
    return closed ? 0 : allocator.getAllocatedMemory();
  }

  /** Bytes written to spill files since the store opened (deleted files included). */
  public synchronized long spilledBytesTotal() {
    return spilledTotal;
  }

  /** Bytes of spill files on disk. */
  public synchronized long diskBytes() {
    return diskBytes;
  }

  /** Number of partitions held (complete or being written). */
  public synchronized int partitionCount() {
    return partitions.size();
  }

  /** Bytes of spill files (this store's and the tasks') the executor may keep. */
  public long diskLimit() {
    return diskLimit;
  }

  /** The directory this store spills to. */
  public Path spillDirectory() {
    return spillDir;
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the shuffle store is closed (the executor is stopping)");
    }
  }

  /** Frees all batches, deletes the spill directory and closes the allocator. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    partitions.values().forEach(this::release);
    partitions.clear();
    try (Stream<Path> files = Files.walk(spillDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(ShuffleStore::deleteQuietly);
    } catch (IOException e) {
      LOG.warn("could not delete shuffle spill directory {}: {}", spillDir, e.toString());
    }
    allocator.close();
  }

  private static long sizeOfFile(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.warn("could not delete shuffle file {}: {}", file, e.toString());
    }
  }
}
