package dev.quiver.distributed.shuffle;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The consumer side of a stage boundary: a leaf that reads another stage's shuffle output.
 *
 * <p>In {@link Mode#HASH} mode, partition {@code p} is the union of output partition {@code p} of
 * every producer task (a hash or round-robin shuffle). In {@link Mode#PER_TASK} mode, partition
 * {@code i} is the single output partition of producer task {@code i}: it keeps each producer's
 * rows apart, which a sort-preserving merge needs, and a coalesce or a broadcast join build side
 * reads them all. In {@link Mode#ALL} mode the node has one partition: every output partition of
 * every producer task, a small hash-partitioned stage read whole (a runtime filter's keys).
 *
 * <p>The planner creates the node without locations; the executor fills them in with {@link
 * #withInputs} from the task's launch request before running it. Adaptive execution may have run
 * the producer stage with another number of tasks than planned (the launch request says how many),
 * and may give this task a {@link Slice} of a HASH input to read instead of its own partition: a
 * range of partitions (coalesced), or a partition's output from some producer tasks only (a skewed
 * partition split; a join's large side read where it was written).
 */
public final class ShuffleReaderExec extends BaseExecutionPlan {
  /** How output partitions map to producer outputs. */
  public enum Mode {
    /** Partition p reads output partition p of every producer task. */
    HASH,
    /** Partition i reads output partition 0 of producer task i. */
    PER_TASK,
    /** The one partition reads every output partition of every producer task. */
    ALL
  }

  private final int stageId;
  private final Partitioning partitioning;
  private final Mode mode;
  private final int producerTasks;
  private final List<ShuffleLocation> locations;
  private final ShuffleClient client;
  private final int ranTasks;
  private final Slice slice;

  /** Arrow buffer bytes of the shuffle input read so far (the web UI's shuffle-read bytes). */
  private final LongAdder readBytes = new LongAdder();

  /**
   * The part of a HASH input one task reads: output partitions [firstPartition, endPartition) of
   * producer tasks [firstTask, endTask).
   */
  public record Slice(int firstPartition, int endPartition, int firstTask, int endTask) {
    /** Validates the ranges. */
    public Slice {
      if (firstPartition < 0
          || endPartition <= firstPartition
          || firstTask < 0
          || endTask <= firstTask) {
        throw new IllegalArgumentException(
            "empty or negative slice "
                + describe(firstPartition, endPartition, firstTask, endTask));
      }
    }

    private static String describe(int fp, int ep, int ft, int et) {
      return "partitions [" + fp + ", " + ep + ") of tasks [" + ft + ", " + et + ")";
    }

    @Override
    public String toString() {
      return describe(firstPartition, endPartition, firstTask, endTask);
    }
  }

  /**
   * Creates a reader.
   *
   * @param stageId the producer stage
   * @param partitioning this node's output partitioning (for HASH: the shuffle's partitioning; for
   *     PER_TASK: {@code producerTasks} partitions)
   * @param producerTasks how many tasks the producer stage runs
   * @param locations where each producer output lives (empty until the task is launched)
   * @param client fetches the data (null until the task is launched)
   */
  public ShuffleReaderExec(
      int stageId,
      Schema schema,
      Partitioning partitioning,
      Mode mode,
      int producerTasks,
      List<ShuffleLocation> locations,
      ShuffleClient client) {
    this(stageId, schema, partitioning, mode, producerTasks, locations, client, -1, null);
  }

  private ShuffleReaderExec(
      int stageId,
      Schema schema,
      Partitioning partitioning,
      Mode mode,
      int producerTasks,
      List<ShuffleLocation> locations,
      ShuffleClient client,
      int ranTasks,
      Slice slice) {
    super(schema, List.of());
    if (slice != null && mode != Mode.HASH) {
      throw new IllegalArgumentException("only a HASH reader reads a slice: " + slice);
    }
    if (mode == Mode.PER_TASK && partitioning.partitionCount() != producerTasks) {
      throw new IllegalArgumentException(
          "a per-task reader has one partition per producer task: "
              + partitioning.partitionCount()
              + " != "
              + producerTasks);
    }
    if (mode == Mode.ALL && partitioning.partitionCount() != 1) {
      throw new IllegalArgumentException(
          "a reader of all partitions has one partition, not " + partitioning.partitionCount());
    }
    this.stageId = stageId;
    this.partitioning = partitioning;
    this.mode = mode;
    this.producerTasks = producerTasks;
    this.locations = List.copyOf(locations);
    this.client = client;
    this.ranTasks = ranTasks;
    this.slice = slice;
  }

  /** An unresolved reader, as the stage planner creates it. */
  public static ShuffleReaderExec unresolved(
      int stageId, Schema schema, Partitioning partitioning, Mode mode, int producerTasks) {
    return new ShuffleReaderExec(
        stageId, schema, partitioning, mode, producerTasks, List.of(), null);
  }

  /** A copy that reads from {@code newLocations} (only those of this stage are kept). */
  public ShuffleReaderExec withLocations(List<ShuffleLocation> newLocations, ShuffleClient with) {
    return withInputs(newLocations, with, -1, null);
  }

  /**
   * A copy that reads from {@code newLocations} (only those of this stage are kept), knowing that
   * the producer stage ran {@code ranTasks} tasks (-1: as planned) and reading {@code slice} of it
   * (null: this task's own partition).
   */
  public ShuffleReaderExec withInputs(
      List<ShuffleLocation> newLocations, ShuffleClient with, int ranTasks, Slice slice) {
    List<ShuffleLocation> mine = new ArrayList<>();
    for (ShuffleLocation l : newLocations) {
      if (l.stageId() == stageId) {
        mine.add(l);
      }
    }
    return new ShuffleReaderExec(
        stageId, schema(), partitioning, mode, producerTasks, mine, with, ranTasks, slice);
  }

  /** The slice of the producers' output this reader reads, or null (its own partition). */
  public Slice slice() {
    return slice;
  }

  /** Arrow buffer bytes of shuffle input this reader has returned so far. */
  public long readBytes() {
    return readBytes.sum();
  }

  /** The producer stage. */
  public int stageId() {
    return stageId;
  }

  /** How partitions map to producer outputs. */
  public Mode mode() {
    return mode;
  }

  /** Number of producer tasks. */
  public int producerTasks() {
    return producerTasks;
  }

  /** Where the producer outputs live (empty before launch). */
  public List<ShuffleLocation> locations() {
    return locations;
  }

  @Override
  public Partitioning outputPartitioning() {
    return partitioning;
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (!children.isEmpty()) {
      throw new IllegalArgumentException("ShuffleReaderExec is a leaf");
    }
    return this;
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    if (client == null) {
      throw new QuiverException(
          "ShuffleReaderExec of stage " + stageId + " was executed before its inputs were known");
    }
    List<ShuffleLocation> inputs = inputsOf(partition);
    return new ConcatStream(schema(), inputs, client, context, readBytes);
  }

  /** The producer outputs partition {@code partition} reads, by partition and producer task. */
  List<ShuffleLocation> inputsOf(int partition) {
    int producers = ranTasks >= 0 ? ranTasks : producerTasks;
    if (mode == Mode.PER_TASK) {
      return perTaskInputs(partition, producers);
    }
    Slice read;
    if (mode == Mode.ALL) {
      int partitions = 0;
      for (ShuffleLocation l : locations) {
        partitions = Math.max(partitions, l.partition() + 1);
      }
      // A producer that wrote no partition at all fails the count below.
      read = new Slice(0, Math.max(1, partitions), 0, producers);
    } else {
      read = slice != null ? slice : new Slice(partition, partition + 1, 0, producers);
    }
    List<ShuffleLocation> out = new ArrayList<>();
    for (ShuffleLocation l : locations) {
      if (l.partition() >= read.firstPartition()
          && l.partition() < read.endPartition()
          && l.taskId() >= read.firstTask()
          && l.taskId() < read.endTask()) {
        out.add(l);
      }
    }
    out.sort(
        Comparator.comparingInt(ShuffleLocation::partition)
            .thenComparingInt(ShuffleLocation::taskId));
    int expected =
        (read.endPartition() - read.firstPartition()) * (read.endTask() - read.firstTask());
    if (out.size() != expected) {
      throw new QuiverException(
          "stage "
              + stageId
              + " partition "
              + partition
              + " has "
              + out.size()
              + " input locations, expected "
              + expected
              + (slice == null ? "" : " (reading " + slice + ")"));
    }
    return out;
  }

  /**
   * The outputs PER_TASK partition {@code partition} reads when the producer ran {@code producers}
   * tasks: task {@code partition}'s, none when it ran fewer tasks than planned (coalesced), and
   * every task {@code partition + k * producerTasks} when it ran more (the planner allows that only
   * where a coalesce reads the partitions, in any order).
   */
  private List<ShuffleLocation> perTaskInputs(int partition, int producers) {
    List<ShuffleLocation> out = new ArrayList<>();
    int expected = 0;
    for (int task = partition; task < producers; task += producerTasks) {
      expected++;
      for (ShuffleLocation l : locations) {
        if (l.taskId() == task && l.partition() == 0) {
          out.add(l);
        }
      }
    }
    if (out.size() != expected) {
      throw new QuiverException(
          "stage "
              + stageId
              + " partition "
              + partition
              + " has "
              + out.size()
              + " input locations, expected "
              + expected);
    }
    out.sort(Comparator.comparingInt(ShuffleLocation::taskId));
    return out;
  }

  @Override
  public String displayDetails() {
    return "stage="
        + stageId
        + ", mode="
        + mode
        + ", producers="
        + producerTasks
        + ", partitioning="
        + partitioning
        + (slice == null ? "" : ", reads " + slice);
  }

  /**
   * Reads the inputs one after the other, with the next few already open: their producers start
   * sending (a remote one over the network) while the current input is read, so a task does not
   * wait a round trip and a first batch per producer.
   */
  private static final class ConcatStream implements BatchStream {
    /** Inputs opened ahead of the one being read. */
    static final int OPEN_AHEAD = 3;

    private final Schema schema;
    private final List<ShuffleLocation> inputs;
    private final ShuffleClient client;
    private final TaskContext context;
    private final LongAdder readBytes;
    private final ArrayDeque<BatchStream> open = new ArrayDeque<>();
    private int next;

    ConcatStream(
        Schema schema,
        List<ShuffleLocation> inputs,
        ShuffleClient client,
        TaskContext context,
        LongAdder readBytes) {
      this.schema = schema;
      this.inputs = inputs;
      this.client = client;
      this.context = context;
      this.readBytes = readBytes;
    }

    @Override
    public Schema schema() {
      return schema;
    }

    @Override
    public VectorSchemaRoot next() {
      while (true) {
        openAhead();
        BatchStream current = open.peekFirst();
        if (current == null) {
          return null;
        }
        VectorSchemaRoot batch = current.next();
        if (batch != null) {
          for (FieldVector v : batch.getFieldVectors()) {
            readBytes.add(v.getBufferSize());
          }
          return batch;
        }
        open.pollFirst().close();
      }
    }

    /** Opens inputs until the one being read and {@link #OPEN_AHEAD} more are open. */
    private void openAhead() {
      while (open.size() <= OPEN_AHEAD && next < inputs.size()) {
        ShuffleLocation input = inputs.get(next++);
        if (!input.empty()) { // a skipped producer task has no rows
          open.addLast(client.open(input, schema, context));
        }
      }
    }

    @Override
    public void close() {
      RuntimeException failure = null;
      while (!open.isEmpty()) {
        try {
          open.pollFirst().close();
        } catch (RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      next = inputs.size();
      if (failure != null) {
        throw failure;
      }
    }
  }
}
