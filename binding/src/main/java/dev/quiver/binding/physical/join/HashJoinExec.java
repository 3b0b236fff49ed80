package dev.quiver.binding.physical.join;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryReservation;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.sort.PartitionPuller;
import dev.quiver.binding.physical.spill.SpillFile;
import dev.quiver.binding.settings.BindingSettings;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Equi-join of two inputs with an optional residual filter over left ++ right columns. INNER, LEFT,
 * RIGHT and FULL joins build a hash table on the left input and stream the right; SEMI and ANTI
 * build on the right and stream the left, emitting left columns only, unless built with {@code
 * semiBuildsLeft}: then they build on the left (the smaller input, e.g. TPC-H Q21's 75K orders
 * against 6M lineitem rows), mark the build rows the right input matches and emit the marked (SEMI)
 * or unmarked (ANTI) ones once the right input ends. Keys with a null never match unless {@code
 * nullEqualsNull}.
 *
 * <p>In {@link PartitionMode#COLLECT_BUILD} mode the build input is gathered once per execution and
 * shared by all output partitions; unmatched build rows of LEFT/FULL joins are emitted once, by the
 * partition that finishes last, so every output partition must be executed.
 *
 * <p>A build input larger than the memory pool grants spills (grace hash join): it is
 * hash-partitioned on its keys into {@code quiver.execution.join_spill_partitions} spill files, the
 * probe input likewise, and each pair of partitions is joined in turn as above, its unmatched rows
 * emitted at its end (a row's matches all lie in its own partition). A partition whose build side
 * still does not fit splits again, with another hash seed, up to {@link #MAX_SPILL_LEVELS} levels.
 * A shared build spills the same way, each output partition joining its own probe rows against the
 * shared partition files, except when build rows' matches must be merged across output partitions
 * (never planned: such joins are partitioned).
 */
public final class HashJoinExec extends BaseExecutionPlan {
  /** Levels of re-partitioning a spilled partition whose build side still does not fit. */
  static final int MAX_SPILL_LEVELS = 4;

  private final ExecutionPlan left;
  private final ExecutionPlan right;
  private final List<PhysicalExpr> leftKeys;
  private final List<PhysicalExpr> rightKeys;
  private final JoinType joinType;
  private final PhysicalExpr residualFilter;
  private final PartitionMode mode;
  private final boolean nullEqualsNull;
  private final boolean buildLeft;
  private final boolean semiBuildsLeft;
  private final boolean emitsMarks;
  private final Schema filterSchema;
  // INNER without a filter: the left ++ right columns emitted, in order; null: all of them.
  private final int[] projection;
  private final SharedBuild.Registry<BuildSide> shared = new SharedBuild.Registry<>();

  /** Creates the operator; {@code residualFilter} may be null. */
  public HashJoinExec(
      ExecutionPlan left,
      ExecutionPlan right,
      List<PhysicalExpr> leftKeys,
      List<PhysicalExpr> rightKeys,
      JoinType joinType,
      PhysicalExpr residualFilter,
      PartitionMode mode,
      boolean nullEqualsNull) {
    this(left, right, leftKeys, rightKeys, joinType, residualFilter, mode, nullEqualsNull, false);
  }

  /**
   * Creates the operator; {@code semiBuildsLeft} makes a SEMI or ANTI join build on its left input
   * (see the class comment).
   */
  public HashJoinExec(
      ExecutionPlan left,
      ExecutionPlan right,
      List<PhysicalExpr> leftKeys,
      List<PhysicalExpr> rightKeys,
      JoinType joinType,
      PhysicalExpr residualFilter,
      PartitionMode mode,
      boolean nullEqualsNull,
      boolean semiBuildsLeft) {
    this(
        left,
        right,
        leftKeys,
        rightKeys,
        joinType,
        residualFilter,
        mode,
        nullEqualsNull,
        semiBuildsLeft,
        null);
  }

  /**
   * Creates an INNER join without a residual filter that emits only the columns {@code projection}
   * lists (distinct indexes into left ++ right, in that order; null for all of them): the matched
   * rows' other columns, such as the keys nothing above reads, are never gathered.
   */
  public HashJoinExec(
      ExecutionPlan left,
      ExecutionPlan right,
      List<PhysicalExpr> leftKeys,
      List<PhysicalExpr> rightKeys,
      JoinType joinType,
      PhysicalExpr residualFilter,
      PartitionMode mode,
      boolean nullEqualsNull,
      boolean semiBuildsLeft,
      int[] projection) {
    this(
        left,
        right,
        leftKeys,
        rightKeys,
        joinType,
        residualFilter,
        mode,
        nullEqualsNull,
        semiBuildsLeft,
        projection,
        false);
  }

  /**
   * Creates a SEMI or ANTI join that builds on its gathered left input and, instead of the rows it
   * keeps, emits from every output partition all the build rows in their input order with a
   * trailing {@link #MARK_COLUMN} saying whether that partition's right rows matched them. A {@link
   * MarkMergeExec} above combines the partitions' marks; unlike the marks of {@code semiBuildsLeft}
   * alone, these need no partition to share memory with another.
   */
  public static HashJoinExec emittingMarks(
      ExecutionPlan gatheredLeft,
      ExecutionPlan right,
      List<PhysicalExpr> leftKeys,
      List<PhysicalExpr> rightKeys,
      JoinType joinType,
      PhysicalExpr residualFilter,
      boolean nullEqualsNull) {
    return new HashJoinExec(
        gatheredLeft,
        right,
        leftKeys,
        rightKeys,
        joinType,
        residualFilter,
        PartitionMode.COLLECT_BUILD,
        nullEqualsNull,
        true,
        null,
        true);
  }

  private HashJoinExec(
      ExecutionPlan left,
      ExecutionPlan right,
      List<PhysicalExpr> leftKeys,
      List<PhysicalExpr> rightKeys,
      JoinType joinType,
      PhysicalExpr residualFilter,
      PartitionMode mode,
      boolean nullEqualsNull,
      boolean semiBuildsLeft,
      int[] projection,
      boolean emitsMarks) {
    super(
        emitsMarks
            ? JoinSupport.withMarkColumn(left.schema())
            : JoinSupport.projected(
                JoinSupport.outputSchema(left.schema(), right.schema(), joinType), projection),
        List.of(left, right));
    if (emitsMarks
        && (!semiBuildsLeft || mode != PartitionMode.COLLECT_BUILD || left.partitionCount() != 1)) {
      throw new IllegalArgumentException(
          "Only a SEMI or ANTI join collecting its single-partition left input emits marks");
    }
    this.emitsMarks = emitsMarks;
    if (projection != null && (joinType != JoinType.INNER || residualFilter != null)) {
      throw new IllegalArgumentException(
          "Only an INNER hash join without a residual filter emits a projection, got "
              + joinType
              + (residualFilter != null ? " with a filter" : ""));
    }
    this.projection = projection == null ? null : projection.clone();
    JoinKeys.checkCompatible(leftKeys, rightKeys, "Hash join");
    if (mode == PartitionMode.PARTITIONED && left.partitionCount() != right.partitionCount()) {
      throw new IllegalArgumentException(
          "Partitioned hash join needs inputs with equal partition counts, got "
              + left.partitionCount()
              + " and "
              + right.partitionCount());
    }
    this.left = left;
    this.right = right;
    this.leftKeys = List.copyOf(leftKeys);
    this.rightKeys = List.copyOf(rightKeys);
    this.joinType = joinType;
    this.residualFilter = residualFilter;
    this.mode = mode;
    this.nullEqualsNull = nullEqualsNull;
    boolean semi = joinType == JoinType.SEMI || joinType == JoinType.ANTI;
    if (semiBuildsLeft && !semi) {
      throw new IllegalArgumentException("Only SEMI and ANTI joins choose their build side");
    }
    this.semiBuildsLeft = semiBuildsLeft;
    this.buildLeft = !semi || semiBuildsLeft;
    this.filterSchema = JoinSupport.filterSchema(left.schema(), right.schema());
  }

  /** The left input. */
  public ExecutionPlan left() {
    return left;
  }

  /** The right input. */
  public ExecutionPlan right() {
    return right;
  }

  /** Key expressions over the left input. */
  public List<PhysicalExpr> leftKeys() {
    return leftKeys;
  }

  /** Key expressions over the right input. */
  public List<PhysicalExpr> rightKeys() {
    return rightKeys;
  }

  /** The join type. */
  public JoinType joinType() {
    return joinType;
  }

  /** The residual filter over left ++ right columns, or null. */
  public PhysicalExpr residualFilter() {
    return residualFilter;
  }

  /** How inputs map to output partitions. */
  public PartitionMode mode() {
    return mode;
  }

  /** Whether null keys match each other. */
  public boolean nullEqualsNull() {
    return nullEqualsNull;
  }

  /** The left ++ right columns emitted, in order, or null when all of them are. */
  public int[] projection() {
    return projection == null ? null : projection.clone();
  }

  /** Whether this SEMI or ANTI join builds on its left input and marks the rows matched. */
  public boolean semiBuildsLeft() {
    return semiBuildsLeft;
  }

  /**
   * Whether every partition emits all build rows with its own marks (see {@link #emittingMarks}).
   */
  public boolean emitsMarks() {
    return emitsMarks;
  }

  /** The name of the boolean column a join {@link #emitsMarks() emitting marks} appends. */
  public static final String MARK_COLUMN = "$mark";

  /**
   * Whether build rows' matches are tracked: they decide which build rows are emitted at the end.
   */
  private boolean tracksBuildMatches() {
    return buildLeft && (semiBuildsLeft || JoinSupport.emitsUnmatchedLeft(joinType));
  }

  /**
   * Whether a probe row without a partner adds nothing to the output: it is neither emitted (as
   * RIGHT, FULL and probe-side ANTI joins do) nor needed for a mark.
   */
  private boolean dropsUnmatchedProbeRows() {
    return buildLeft ? !JoinSupport.emitsUnmatchedRight(joinType) : joinType == JoinType.SEMI;
  }

  private ExecutionPlan buildPlan() {
    return buildLeft ? left : right;
  }

  /**
   * The input streamed through the join: partition p of the join reads partition p of it (the other
   * input is collected once, or read partition for partition when both are partitioned).
   */
  public ExecutionPlan probePlan() {
    return buildLeft ? right : left;
  }

  @Override
  public Partitioning outputPartitioning() {
    Partitioning all = unprojectedPartitioning();
    if (projection == null || all.kind() != Partitioning.Kind.HASH) {
      return all;
    }
    // Hash partitioning survives when every key column is emitted.
    List<PhysicalExpr> mapped = new ArrayList<>();
    for (PhysicalExpr key : all.hashExprs()) {
      int found = -1;
      if (key instanceof ColumnExpr col) {
        for (int i = 0; i < projection.length && found < 0; i++) {
          if (projection[i] == col.index()) {
            found = i;
          }
        }
      }
      if (found < 0) {
        return Partitioning.unknown(all.partitionCount());
      }
      mapped.add(ColumnExpr.of(found, schema().getFields().get(found)));
    }
    return Partitioning.hash(mapped, all.partitionCount());
  }

  private Partitioning unprojectedPartitioning() {
    int n = probePlan().partitionCount();
    int leftWidth = left.schema().getFields().size();
    if (mode == PartitionMode.PARTITIONED) {
      return switch (joinType) {
        case INNER, LEFT, SEMI, ANTI -> Partitioning.hash(leftKeys, n);
        case RIGHT -> {
          List<PhysicalExpr> shifted = JoinSupport.shift(rightKeys, leftWidth);
          yield shifted == null ? Partitioning.unknown(n) : Partitioning.hash(shifted, n);
        }
        case FULL -> Partitioning.unknown(n);
      };
    }
    if (semiBuildsLeft) {
      // Every row is emitted by whichever partition finishes the shared build last.
      return Partitioning.unknown(n);
    }
    Partitioning probe = probePlan().outputPartitioning();
    return switch (joinType) {
      case SEMI, ANTI -> probe;
      case INNER, RIGHT -> {
        if (probe.kind() != Partitioning.Kind.HASH) {
          yield probe.kind() == Partitioning.Kind.SINGLE ? probe : Partitioning.unknown(n);
        }
        List<PhysicalExpr> shifted = JoinSupport.shift(probe.hashExprs(), leftWidth);
        yield shifted == null ? Partitioning.unknown(n) : Partitioning.hash(shifted, n);
      }
      case LEFT, FULL -> Partitioning.unknown(n);
    };
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (children.size() != 2) {
      throw new IllegalArgumentException("HashJoinExec takes two children, got " + children.size());
    }
    return new HashJoinExec(
        children.get(0),
        children.get(1),
        leftKeys,
        rightKeys,
        joinType,
        residualFilter,
        mode,
        nullEqualsNull,
        semiBuildsLeft,
        projection,
        emitsMarks);
  }

  @Override
  public String displayDetails() {
    List<String> on = new ArrayList<>();
    for (int i = 0; i < leftKeys.size(); i++) {
      on.add("(" + leftKeys.get(i) + ", " + rightKeys.get(i) + ")");
    }
    return "mode="
        + mode
        + ", join_type="
        + joinType
        + ", on="
        + on
        + (residualFilter != null ? ", filter=" + residualFilter : "")
        + (nullEqualsNull ? ", null_equals_null=true" : "")
        + (semiBuildsLeft ? ", build=left" : "")
        + (emitsMarks ? ", emit=marks" : "")
        + (projection != null
            ? ", projection=["
                + String.join(", ", schema().getFields().stream().map(f -> f.getName()).toList())
                + "]"
            : "");
  }

  private String consumer(int partition) {
    return "HashJoinExec("
        + joinType
        + " on "
        + leftKeys
        + " = "
        + rightKeys
        + ") build side"
        + (partition >= 0 ? " of partition " + partition : "");
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    SharedBuild<BuildSide> s =
        mode == PartitionMode.COLLECT_BUILD ? shared.acquire(context, partitionCount()) : null;
    return new HashJoinStream(partition, context, s);
  }

  /**
   * The hashed build input: its rows in one batch, the key table and the reserved memory; or, when
   * it did not fit, its rows hash-partitioned into spill files ({@code batch} and {@code table}
   * null).
   */
  private static final class BuildSide implements AutoCloseable {
    final VectorSchemaRoot batch;
    final JoinHashTable table;
    final MemoryReservation reservation;
    final List<SpillFile> spilled;

    /** Which columns of {@code batch} have nulls, counted once for all the probes' gathers. */
    final boolean[] columnsWithNulls;

    /** Rules out probe rows before they are hashed, or null (see {@link KeyBitmap}). */
    final KeyBitmap keyBitmap;

    BuildSide(
        VectorSchemaRoot batch,
        JoinHashTable table,
        KeyBitmap keyBitmap,
        MemoryReservation reservation) {
      this.batch = batch;
      this.table = table;
      this.keyBitmap = keyBitmap;
      this.reservation = reservation;
      this.spilled = null;
      this.columnsWithNulls = JoinSupport.columnsWithNulls(batch);
    }

    BuildSide(List<SpillFile> spilled) {
      this.batch = null;
      this.table = null;
      this.keyBitmap = null;
      this.reservation = null;
      this.spilled = spilled;
      this.columnsWithNulls = null;
    }

    @Override
    public void close() {
      List<AutoCloseable> all = new ArrayList<>();
      all.add(batch);
      all.add(reservation);
      if (spilled != null) {
        all.addAll(spilled);
      }
      Batches.closeAll(all);
    }
  }

  private List<PhysicalExpr> buildKeys() {
    return buildLeft ? leftKeys : rightKeys;
  }

  private List<PhysicalExpr> probeKeys() {
    return buildLeft ? rightKeys : leftKeys;
  }

  private static int spillFanout(TaskContext context) {
    return context.config().get(BindingSettings.JOIN_SPILL_PARTITIONS);
  }

  private String spillPrefix(TaskContext context, String side) {
    return "quiver-join-" + context.queryId() + "-" + side + "-";
  }

  /**
   * Drains one partition ({@code partition >= 0}) or all partitions (-1) of the build input and
   * hashes it in memory, reserving its bytes; when the pool refuses and {@code maySpill}, spills it
   * as hash partitions instead (recording the bytes in this operator's metrics).
   */
  private BuildSide buildSide(int partition, TaskContext context, boolean maySpill) {
    ExecutionPlan plan = buildPlan();
    MemoryReservation reservation = context.memoryPool().newReservation(consumer(partition));
    List<VectorSchemaRoot> batches = new ArrayList<>();
    SpillPartitions spill = null;
    try {
      BatchStream in =
          partition >= 0 || plan.partitionCount() == 1
              ? plan.execute(Math.max(partition, 0), context)
              : partitionsOf(plan, context);
      try (in) {
        VectorSchemaRoot b;
        while ((b = in.next()) != null) {
          if (b.getRowCount() == 0) {
            b.close();
            continue;
          }
          if (spill != null) {
            try (VectorSchemaRoot batch = b) {
              spill.add(batch);
            }
            continue;
          }
          batches.add(b);
          long size = Batches.sizeInBytes(b);
          if (!reservation.tryGrow(size)) {
            if (!maySpill) {
              reservation.grow(size); // throws ResourcesExhaustedException unless room appeared
            } else {
              spill = startSpill(context, batches, reservation);
            }
          }
        }
      }
      if (spill == null) {
        BuildSide built =
            hashInMemory(plan.schema(), batches, reservation, context, maySpill, false);
        if (built != null) {
          return built;
        }
        spill = startSpill(context, batches, reservation);
      }
      List<SpillFile> files = spill.finish();
      spill = null;
      long bytes = 0;
      for (SpillFile f : files) {
        bytes += f.bytes();
      }
      metrics().recordSpill(bytes);
      reservation.close();
      return new BuildSide(files);
    } catch (RuntimeException e) {
      reservation.close();
      if (e instanceof OutOfMemoryException) {
        throw new ResourcesExhaustedException(
            "Resources exhausted: "
                + reservation.consumer()
                + " could not allocate Arrow memory ("
                + e.getMessage()
                + "); raise quiver.execution.memory_limit",
            e);
      }
      throw e;
    } finally {
      Batches.closeAll(batches);
      if (spill != null) {
        spill.close();
      }
    }
  }

  /** All partitions of {@code plan} pulled concurrently, as one stream. */
  private static BatchStream partitionsOf(ExecutionPlan plan, TaskContext context) {
    PartitionPuller puller = new PartitionPuller(plan, context, false);
    return new BatchStream() {
      @Override
      public Schema schema() {
        return plan.schema();
      }

      @Override
      public VectorSchemaRoot next() {
        return puller.next(0);
      }

      @Override
      public void close() {
        puller.close();
      }
    };
  }

  /** Moves the buffered build batches into new spill partitions and gives their memory back. */
  private SpillPartitions startSpill(
      TaskContext context, List<VectorSchemaRoot> batches, MemoryReservation reservation) {
    context.checkCancelled();
    SpillPartitions spill =
        new SpillPartitions(
            context,
            spillPrefix(context, "build"),
            buildPlan().schema(),
            buildKeys(),
            spillFanout(context),
            0,
            !nullEqualsNull);
    try {
      for (VectorSchemaRoot b : batches) {
        spill.add(b);
      }
    } catch (RuntimeException e) {
      spill.close();
      throw e;
    }
    Batches.closeAll(batches);
    batches.clear();
    reservation.shrink(reservation.size());
    return spill;
  }

  /**
   * Concatenates {@code batches} (their bytes already reserved) and hashes them; null when the pool
   * refuses the copy or the table and {@code maySpill} (the batches are then untouched). {@code
   * lastLevel}: the rows cannot be split further, so the pool's headroom may be used.
   */
  private BuildSide hashInMemory(
      Schema schema,
      List<VectorSchemaRoot> batches,
      MemoryReservation reservation,
      TaskContext context,
      boolean maySpill,
      boolean lastLevel) {
    int rows = 0;
    for (VectorSchemaRoot b : batches) {
      rows += b.getRowCount();
    }
    long copy = batches.size() > 1 ? reservation.size() : 0;
    long table = JoinHashTable.estimateBytes(rows, buildKeys());
    boolean reserved =
        lastLevel
            ? reservation.tryGrowWithHeadroom(copy + table)
            : reservation.tryGrow(copy + table);
    if (!reserved) {
      if (maySpill) {
        return null;
      }
      reservation.grow(copy + table); // throws ResourcesExhaustedException unless room appeared
    }
    VectorSchemaRoot batch;
    if (batches.isEmpty()) {
      batch = Batches.empty(schema, context.allocator());
    } else if (batches.size() == 1) {
      batch = batches.remove(0);
    } else {
      batch = Batches.concat(schema, batches, context.allocator());
      Batches.closeAll(batches);
      batches.clear();
    }
    try {
      long batchBytes = Batches.sizeInBytes(batch);
      reservation.resize(batchBytes + table);
      JoinKeys k = JoinKeys.extract(batch, buildKeys(), context.allocator());
      JoinHashTable hashed = new JoinHashTable(k, nullEqualsNull);
      // Exact now: string keys' bytes were unknown before extraction.
      reservation.resize(batchBytes + hashed.heapBytes());
      KeyBitmap bitmap =
          dropsUnmatchedProbeRows() && context.config().get(BindingSettings.JOIN_KEY_BITMAP)
              ? KeyBitmap.of(k, probeKeys())
              : null;
      if (bitmap != null && !reservation.tryGrow(bitmap.heapBytes())) {
        bitmap = null; // an optimization only: not worth spilling or failing for
      }
      return new BuildSide(batch, hashed, bitmap, reservation);
    } catch (RuntimeException e) {
      batch.close();
      throw e;
    }
  }

  /**
   * Loads a spilled build partition and hashes it, reserving its bytes; null when the pool refuses
   * them.
   */
  private BuildSide loadPartition(
      SpillFile file, int partition, TaskContext context, boolean lastLevel) {
    MemoryReservation reservation = context.memoryPool().newReservation(consumer(partition));
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      boolean fits = true;
      try (BatchStream in = file.stream(context.allocator())) {
        VectorSchemaRoot b;
        while (fits && (b = in.next()) != null) {
          batches.add(b);
          long size = Batches.sizeInBytes(b);
          fits = lastLevel ? reservation.tryGrowWithHeadroom(size) : reservation.tryGrow(size);
        }
      }
      BuildSide built =
          fits
              ? hashInMemory(buildPlan().schema(), batches, reservation, context, true, lastLevel)
              : null;
      if (built == null) {
        reservation.close();
      }
      return built;
    } catch (RuntimeException e) {
      reservation.close();
      throw e;
    } finally {
      Batches.closeAll(batches);
    }
  }

  /** A pair of spilled partitions to join: the build rows and the probe rows of one hash range. */
  private static final class SpilledPair implements AutoCloseable {
    final SpillFile build;
    final boolean ownsBuild;
    final SpillFile probe;
    final int level;

    /** Rows whose key has a null (which match nothing): streamed out, never hashed. */
    final boolean nullKeys;

    SpilledPair(SpillFile build, boolean ownsBuild, SpillFile probe, int level, boolean nullKeys) {
      this.build = build;
      this.ownsBuild = ownsBuild;
      this.probe = probe;
      this.level = level;
      this.nullKeys = nullKeys;
    }

    @Override
    public void close() {
      Batches.closeAll(java.util.Arrays.asList(ownsBuild ? build : null, probe));
    }
  }

  /** Probe rows tested before a key bitmap that lets 80% of them through is given up. */
  private static final long BITMAP_TRIAL_ROWS = 1 << 16;

  private final class HashJoinStream extends JoinOutputStream {
    private final int partition;
    private final TaskContext context;
    private final SharedBuild<BuildSide> sharedBuild;
    private final int[] buildIdx;
    private final int[] probeIdx;

    /** Spilled partition pairs still to join, the next first. */
    private final Deque<SpilledPair> pending = new ArrayDeque<>();

    private boolean started;

    /** The current pass's build side: the whole input, or one spilled partition; null between. */
    private BuildSide build;

    /** A build side this stream frees itself (not the shared one). */
    private BuildSide ownBuild;

    /** The spilled pair the current pass joins, or null. */
    private SpilledPair pair;

    /**
     * Whether the current pass's build is the shared build, whose matches merge across partitions.
     */
    private boolean sharedPass;

    /** In a pass over rows with null keys: their stream (build rows first, then probe rows). */
    private BatchStream nullRows;

    private boolean nullRowsOfBuild;
    private long[] buildMatched;
    private BatchStream probeIn;
    private VectorSchemaRoot probeBatch;
    private JoinKeys probeKeys;
    private JoinHashTable.Probe probe;
    private boolean[] probeMatched;

    /** Whether to test probe rows against the build's key bitmap: until it proves not to pay. */
    private boolean bitmapPays = true;

    private long bitmapTested;
    private long bitmapKept;
    private boolean[] bitmapKeep = new boolean[0];

    HashJoinStream(int partition, TaskContext context, SharedBuild<BuildSide> sharedBuild) {
      super(context);
      this.partition = partition;
      this.context = context;
      this.sharedBuild = sharedBuild;
      this.buildIdx = new int[batchSize];
      this.probeIdx = new int[batchSize];
    }

    @Override
    public Schema schema() {
      return HashJoinExec.this.schema();
    }

    @Override
    protected String memoryConsumer() {
      return consumer(partition);
    }

    @Override
    protected void step() {
      if (!started) {
        started = true;
        start();
        return;
      }
      if (nullRows != null) {
        streamNullKeys();
        return;
      }
      if (build == null) {
        if (!nextPass()) {
          finished = true;
        }
        return;
      }
      if (probeBatch == null) {
        VectorSchemaRoot b = probeIn.next();
        if (b == null) {
          probeEnded();
          endPass();
          return;
        }
        if (b.getRowCount() == 0) {
          b.close();
          return;
        }
        if (bitmapPays && build.keyBitmap != null) {
          b = withoutRuledOutRows(b);
          if (b == null) {
            return;
          }
        }
        probeBatch = b;
        probeKeys = JoinKeys.extract(b, probeKeys(), allocator);
        boolean needPairs = buildLeft || residualFilter != null;
        probe = needPairs ? build.table.new Probe(probeKeys) : null;
        probeMatched =
            buildLeft && !JoinSupport.emitsUnmatchedRight(joinType)
                ? null
                : new boolean[b.getRowCount()];
        return;
      }
      if (probe != null && !probe.done()) {
        int n = probe.fill(buildIdx, probeIdx, batchSize);
        if (n > 0) {
          if (semiBuildsLeft) {
            markBuildMatches(n);
          } else if (buildLeft) {
            emitPairs(n);
          } else {
            markSemiCandidates(n);
          }
        }
        return;
      }
      finishProbeBatch();
    }

    /**
     * The rows of probe batch {@code b} the build's key bitmap does not rule out, or null when it
     * rules out all ({@code b} is then closed). Most rows passing keep the batch whole: the probe
     * rejects the few others more cheaply than a copy. When most rows keep passing, the test stops.
     */
    private VectorSchemaRoot withoutRuledOutRows(VectorSchemaRoot b) {
      int rows = b.getRowCount();
      if (bitmapKeep.length < rows) {
        bitmapKeep = new boolean[rows];
      }
      int kept;
      try {
        kept = build.keyBitmap.mayMatch(b, probeKeys(), nullEqualsNull, allocator, bitmapKeep);
      } catch (RuntimeException e) {
        b.close();
        throw e;
      }
      bitmapTested += rows;
      bitmapKept += kept;
      metrics().recordRuledOut(rows - kept);
      if (bitmapTested >= BITMAP_TRIAL_ROWS && bitmapKept * 5 > bitmapTested * 4) {
        bitmapPays = false;
      }
      if (kept == 0) {
        b.close();
        return null;
      }
      if (kept * 4 > rows * 3) {
        return b;
      }
      return JoinSupport.select(b, bitmapKeep, allocator);
    }

    /** Builds (or spills) the build side; a spilled one also spills the probe input. */
    private void start() {
      BuildSide b;
      if (sharedBuild != null) {
        // Matches of a shared build merge across output partitions: only in memory.
        boolean maySpill = !tracksBuildMatches();
        b = sharedBuild.get(() -> buildSide(-1, context, maySpill));
      } else {
        b = buildSide(partition, context, true);
        ownBuild = b;
      }
      if (b.spilled == null) {
        sharedPass = sharedBuild != null;
        beginPass(b);
        return;
      }
      List<SpillFile> probeFiles;
      try (BatchStream in = probePlan().execute(partition, context)) {
        probeFiles = spill(in, probePlan().schema(), probeKeys(), "probe", 0);
      }
      boolean owned = sharedBuild == null;
      int fanout = spillFanout(context);
      for (int k = 0; k < probeFiles.size(); k++) {
        pending.add(new SpilledPair(b.spilled.get(k), owned, probeFiles.get(k), 0, k == fanout));
      }
      ownBuild = null; // its files now belong to the pairs
    }

    /** Whether a pass over an empty build side produces nothing. */
    private boolean emptyBuildEmitsNothing() {
      return joinType == JoinType.INNER
          || joinType == JoinType.LEFT
          || joinType == JoinType.SEMI
          || semiBuildsLeft;
    }

    /**
     * Starts joining the probe rows of this pass (the whole probe input, or the pair's) to {@code
     * b}.
     */
    private void beginPass(BuildSide b) {
      build = b;
      int rows = b.batch.getRowCount();
      if (rows == 0 && emptyBuildEmitsNothing()) {
        endPass();
        return;
      }
      if (tracksBuildMatches()) {
        buildMatched = new long[(rows + 63) >>> 6];
      }
      probeIn =
          pair != null ? pair.probe.stream(allocator) : probePlan().execute(partition, context);
    }

    /** Frees the pass's build (unless shared) and probe input. */
    private void endPass() {
      List<AutoCloseable> done = new ArrayList<>();
      done.add(nullRows);
      done.add(probeIn);
      done.add(ownBuild);
      done.add(pair);
      nullRows = null;
      probeIn = null;
      ownBuild = null;
      pair = null;
      build = null;
      buildMatched = null;
      sharedPass = false;
      Batches.closeAll(done);
    }

    /** Starts the next spilled pair that fits in memory, splitting those that do not. */
    private boolean nextPass() {
      SpilledPair p;
      while ((p = pending.poll()) != null) {
        context.checkCancelled();
        if ((p.build.rows() == 0 && emptyBuildEmitsNothing())
            || (p.probe.rows() == 0 && !tracksBuildMatches())) {
          p.close();
          continue;
        }
        if (p.nullKeys) {
          pair = p;
          nullRows = p.build.stream(allocator);
          nullRowsOfBuild = true;
          return true;
        }
        BuildSide loaded;
        try {
          // A partition that can be split no further may use the pool's headroom before failing.
          loaded = loadPartition(p.build, partition, context, p.level + 1 >= MAX_SPILL_LEVELS);
        } catch (RuntimeException e) {
          p.close();
          throw e;
        }
        if (loaded == null) {
          split(p);
          continue;
        }
        pair = p;
        ownBuild = loaded;
        beginPass(loaded);
        return true;
      }
      return false;
    }

    /** Splits a pair whose build side does not fit into pairs one level down, joined next. */
    private void split(SpilledPair p) {
      try (p) {
        int level = p.level + 1;
        if (level >= MAX_SPILL_LEVELS) {
          throw new ResourcesExhaustedException(
              "Resources exhausted: "
                  + consumer(partition)
                  + " spilled and split its input "
                  + MAX_SPILL_LEVELS
                  + " times, and a partition of "
                  + p.build.rows()
                  + " rows ("
                  + p.build.bytes()
                  + " bytes on disk) still does not fit the query"
                  + " memory pool ("
                  + context.memoryPool().limit()
                  + " bytes, "
                  + context.memoryPool().reserved()
                  + " reserved): too many rows share a join"
                  + " key; raise quiver.execution.memory_limit");
        }
        List<SpillFile> builds;
        try (BatchStream in = p.build.stream(allocator)) {
          builds = spill(in, buildPlan().schema(), buildKeys(), "build", level);
        }
        List<SpillFile> probes;
        try (BatchStream in = p.probe.stream(allocator)) {
          probes = spill(in, probePlan().schema(), probeKeys(), "probe", level);
        } catch (RuntimeException e) {
          Batches.closeAll(builds);
          throw e;
        }
        for (int k = builds.size() - 1; k >= 0; k--) {
          pending.addFirst(new SpilledPair(builds.get(k), true, probes.get(k), level, false));
        }
      }
    }

    /** Writes {@code in} hash-partitioned on {@code keys} at {@code level}; returns the files. */
    private List<SpillFile> spill(
        BatchStream in, Schema schema, List<PhysicalExpr> keys, String side, int level) {
      try (SpillPartitions out =
          new SpillPartitions(
              context,
              spillPrefix(context, side),
              schema,
              keys,
              spillFanout(context),
              level,
              level == 0 && !nullEqualsNull)) {
        VectorSchemaRoot b;
        while ((b = in.next()) != null) {
          try (VectorSchemaRoot batch = b) {
            out.add(batch);
          }
          context.checkCancelled();
        }
        List<SpillFile> files = out.finish();
        long bytes = 0;
        for (SpillFile f : files) {
          bytes += f.bytes();
        }
        metrics().recordSpill(bytes);
        return files;
      }
    }

    /**
     * Emits the next batch of rows with a null key, which match nothing: build rows as a join emits
     * unmatched build rows (LEFT/FULL padded, ANTI built on the left as they are), probe rows as it
     * emits unmatched probe rows (RIGHT/FULL padded, ANTI as they are).
     */
    private void streamNullKeys() {
      VectorSchemaRoot b = nullRows.next();
      if (b == null) {
        nullRows.close();
        nullRows = null;
        if (nullRowsOfBuild) {
          nullRowsOfBuild = false;
          nullRows = pair.probe.stream(allocator);
        } else {
          endPass();
        }
        return;
      }
      try (b) {
        int[] all = new int[b.getRowCount()];
        for (int i = 0; i < all.length; i++) {
          all[i] = i;
        }
        if (nullRowsOfBuild) {
          if (semiBuildsLeft) {
            if (joinType == JoinType.ANTI) {
              emitRows(b, all);
            }
          } else if (buildLeft && JoinSupport.emitsUnmatchedLeft(joinType)) {
            try (VectorSchemaRoot emptyRight = Batches.empty(right.schema(), allocator)) {
              emitPadded(b, all, emptyRight, null);
            }
          }
        } else if (!buildLeft) {
          if (joinType == JoinType.ANTI) {
            emitRows(b, all);
          }
        } else if (!semiBuildsLeft && JoinSupport.emitsUnmatchedRight(joinType)) {
          try (VectorSchemaRoot emptyLeft = Batches.empty(left.schema(), allocator)) {
            emitPadded(emptyLeft, null, b, all);
          }
        }
      }
    }

    /** INNER/LEFT/RIGHT/FULL: output matched pairs that pass the filter and record matches. */
    private void emitPairs(int n) {
      VectorSchemaRoot out =
          JoinSupport.gatherPairs(
              schema(),
              build.batch,
              build.columnsWithNulls,
              buildIdx,
              probeBatch,
              null,
              probeIdx,
              n,
              allocator,
              projection);
      boolean[] keep = null;
      if (residualFilter != null) {
        try {
          keep = JoinSupport.evaluateFilter(residualFilter, out, allocator);
        } catch (RuntimeException e) {
          out.close();
          throw e;
        }
        out = JoinSupport.select(out, keep, allocator);
      }
      for (int i = 0; i < n; i++) {
        if (keep == null || keep[i]) {
          if (buildMatched != null) {
            JoinSupport.setBit(buildMatched, buildIdx[i]);
          }
          if (probeMatched != null) {
            probeMatched[probeIdx[i]] = true;
          }
        }
      }
      addReady(out);
    }

    /** SEMI/ANTI built on the left: mark build rows with a probe row passing the filter. */
    private void markBuildMatches(int n) {
      if (residualFilter == null) {
        for (int i = 0; i < n; i++) {
          JoinSupport.setBit(buildMatched, buildIdx[i]);
        }
        return;
      }
      try (VectorSchemaRoot candidates =
          JoinSupport.gatherPairs(
              filterSchema,
              build.batch,
              build.columnsWithNulls,
              buildIdx,
              probeBatch,
              null,
              probeIdx,
              n,
              allocator)) {
        boolean[] keep = JoinSupport.evaluateFilter(residualFilter, candidates, allocator);
        for (int i = 0; i < n; i++) {
          if (keep[i]) {
            JoinSupport.setBit(buildMatched, buildIdx[i]);
          }
        }
      }
    }

    /** SEMI/ANTI with a filter: mark probe (left) rows with a candidate passing the filter. */
    private void markSemiCandidates(int n) {
      try (VectorSchemaRoot candidates =
          JoinSupport.gatherPairs(
              filterSchema,
              probeBatch,
              null,
              probeIdx,
              build.batch,
              build.columnsWithNulls,
              buildIdx,
              n,
              allocator)) {
        boolean[] keep = JoinSupport.evaluateFilter(residualFilter, candidates, allocator);
        for (int i = 0; i < n; i++) {
          if (keep[i]) {
            probeMatched[probeIdx[i]] = true;
          }
        }
      }
    }

    private void finishProbeBatch() {
      if (!buildLeft) {
        if (probe == null) {
          build.table.anyMatches(probeKeys, probeMatched);
        }
        boolean wanted = joinType == JoinType.SEMI;
        emitRows(probeBatch, JoinSupport.rowsWhere(probeMatched, wanted));
      } else if (JoinSupport.emitsUnmatchedRight(joinType)) {
        emitPadded(build.batch, null, probeBatch, JoinSupport.rowsWhere(probeMatched, false));
      }
      probeBatch.close();
      probeBatch = null;
      probeKeys = null;
      probe = null;
      probeMatched = null;
    }

    /** Emits the pass's build rows the join keeps at its end (unmatched, or for SEMI matched). */
    private void probeEnded() {
      if (buildMatched == null) {
        return;
      }
      long[] matched = buildMatched;
      if (emitsMarks) {
        emitMarks(build.batch, matched);
        return;
      }
      if (sharedPass) {
        if (!sharedBuild.finish(buildMatched)) {
          return;
        }
        matched = sharedBuild.matched();
      }
      if (semiBuildsLeft) {
        boolean wanted = joinType == JoinType.SEMI;
        emitRows(build.batch, JoinSupport.rowsWhere(matched, build.batch.getRowCount(), wanted));
        return;
      }
      int[] idx = JoinSupport.rowsWhere(matched, build.batch.getRowCount(), false);
      try (VectorSchemaRoot emptyRight = Batches.empty(right.schema(), allocator)) {
        emitPadded(build.batch, idx, emptyRight, null);
      }
    }

    /** Emits every build row, in order, with this partition's mark. */
    private void emitMarks(VectorSchemaRoot rows, long[] matched) {
      int count = rows.getRowCount();
      for (int off = 0; off < count; off += batchSize) {
        int n = Math.min(batchSize, count - off);
        addReady(JoinSupport.sliceWithMarks(schema(), rows, off, n, matched, allocator));
      }
    }

    @Override
    protected void releaseResources(List<AutoCloseable> toClose) {
      toClose.add(probeBatch);
      toClose.add(nullRows);
      toClose.add(probeIn);
      toClose.add(ownBuild);
      toClose.add(pair);
      toClose.addAll(pending);
      pending.clear();
      if (sharedBuild != null) {
        toClose.add(() -> shared.release(context, sharedBuild));
      }
      probeBatch = null;
      nullRows = null;
      probeIn = null;
      ownBuild = null;
      pair = null;
    }
  }
}
