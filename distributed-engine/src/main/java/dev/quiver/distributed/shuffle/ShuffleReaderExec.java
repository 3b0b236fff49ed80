package dev.quiver.distributed.shuffle;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The consumer side of a stage boundary: a leaf that reads another stage's shuffle output.
 *
 * <p>In {@link Mode#HASH} mode, partition {@code p} is the union of output partition {@code p} of
 * every producer task (a hash or round-robin shuffle). In {@link Mode#PER_TASK} mode, partition
 * {@code i} is the single output partition of producer task {@code i}: it keeps each producer's
 * rows apart, which a sort-preserving merge needs, and a coalesce or a broadcast join build side
 * reads them all.
 *
 * <p>The planner creates the node without locations; the executor fills them in with {@link
 * #withLocations} from the task's launch request before running it.
 */
public final class ShuffleReaderExec extends BaseExecutionPlan {
  /** How output partitions map to producer outputs. */
  public enum Mode {
    /** Partition p reads output partition p of every producer task. */
    HASH,
    /** Partition i reads output partition 0 of producer task i. */
    PER_TASK
  }

  private final int stageId;
  private final Partitioning partitioning;
  private final Mode mode;
  private final int producerTasks;
  private final List<ShuffleLocation> locations;
  private final ShuffleClient client;

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
    super(schema, List.of());
    if (mode == Mode.PER_TASK && partitioning.partitionCount() != producerTasks) {
      throw new IllegalArgumentException(
          "a per-task reader has one partition per producer task: "
              + partitioning.partitionCount()
              + " != "
              + producerTasks);
    }
    this.stageId = stageId;
    this.partitioning = partitioning;
    this.mode = mode;
    this.producerTasks = producerTasks;
    this.locations = List.copyOf(locations);
    this.client = client;
  }

  /** An unresolved reader, as the stage planner creates it. */
  public static ShuffleReaderExec unresolved(
      int stageId, Schema schema, Partitioning partitioning, Mode mode, int producerTasks) {
    return new ShuffleReaderExec(
        stageId, schema, partitioning, mode, producerTasks, List.of(), null);
  }

  /** A copy that reads from {@code newLocations} (only those of this stage are kept). */
  public ShuffleReaderExec withLocations(List<ShuffleLocation> newLocations, ShuffleClient with) {
    List<ShuffleLocation> mine = new ArrayList<>();
    for (ShuffleLocation l : newLocations) {
      if (l.stageId() == stageId) {
        mine.add(l);
      }
    }
    return new ShuffleReaderExec(stageId, schema(), partitioning, mode, producerTasks, mine, with);
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
    return new ConcatStream(schema(), inputs, client, context);
  }

  /** The producer outputs partition {@code partition} reads, one per producer task, in order. */
  List<ShuffleLocation> inputsOf(int partition) {
    List<ShuffleLocation> out = new ArrayList<>();
    for (ShuffleLocation l : locations) {
      boolean wanted =
          mode == Mode.HASH
              ? l.partition() == partition
              : l.taskId() == partition && l.partition() == 0;
      if (wanted) {
        out.add(l);
      }
    }
    out.sort(Comparator.comparingInt(ShuffleLocation::taskId));
    int expected = mode == Mode.HASH ? producerTasks : 1;
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
        + partitioning;
  }

  /** Reads the inputs one after the other. */
  private static final class ConcatStream implements BatchStream {
    private final Schema schema;
    private final List<ShuffleLocation> inputs;
    private final ShuffleClient client;
    private final TaskContext context;
    private int next;
    private BatchStream current;

    ConcatStream(
        Schema schema, List<ShuffleLocation> inputs, ShuffleClient client, TaskContext context) {
      this.schema = schema;
      this.inputs = inputs;
      this.client = client;
      this.context = context;
    }

    @Override
    public Schema schema() {
      return schema;
    }

    @Override
    public VectorSchemaRoot next() {
      while (true) {
        if (current == null) {
          if (next == inputs.size()) {
            return null;
          }
          ShuffleLocation input = inputs.get(next++);
          if (input.empty()) {
            continue; // a skipped producer task: no rows
          }
          current = client.open(input, schema, context);
        }
        VectorSchemaRoot batch = current.next();
        if (batch != null) {
          return batch;
        }
        current.close();
        current = null;
      }
    }

    @Override
    public void close() {
      if (current != null) {
        current.close();
        current = null;
      }
      next = inputs.size();
    }
  }
}
