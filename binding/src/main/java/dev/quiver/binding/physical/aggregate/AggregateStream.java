package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.MemoryReservation;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.Vectors;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.settings.BindingSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One partition of a {@link HashAggregateExec}: consumes the input into a {@link GroupTable} and
 * accumulators, then emits groups in batches. Under memory pressure PARTIAL emits early and starts
 * over; FINAL/SINGLE write states sorted by key hash to Arrow IPC runs and merge the runs hash
 * range by hash range at the end.
 */
final class AggregateStream implements BatchStream {
  private static final int SPILL_BATCH_ROWS = 1024;

  private static final Field HASH_FIELD =
      Accumulators.notNull("__hash", new ArrowType.Int(32, true));

  private final HashAggregateExec plan;
  private final TaskContext ctx;
  private final BufferAllocator allocator;
  private final List<AggregateCall> calls;
  private final Accumulator[] accs;
  private final int[] stateOffsets;
  private final GroupTable table;
  private final boolean rawInput;
  private final boolean partialOutput;
  private final boolean spillable;
  private final int batchSize;
  private final Schema stateSchema;
  private final Schema spillSchema;
  private final MemoryReservation reservation;

  /** For PARTIAL output that may start over: watches whether the input is clustered by key. */
  private final ClusteredKeys clustered;

  // PARTIAL only: input rows after which it checks that it reduces rows (0 never), the groups per
  // hundred rows above which it does not, the rows read in all and into the current table.
  private final long probeRows;
  private final int skipPercent;
  private long rowsRead;
  private long rowsInTable;
  private boolean probed;
  // Set once the check found too many groups: each batch is aggregated and emitted on its own.
  private boolean batchAtATime;

  private final List<Path> spills = new ArrayList<>();
  private final List<SpillRun> runs = new ArrayList<>();
  private BatchStream in;
  private int[] gids = new int[1024];
  private int[] chunkIds = new int[0];
  private boolean[] nullBuf = new boolean[0];
  private boolean inputDone;
  private boolean merging;
  private boolean draining;
  private boolean finished;
  private boolean closed;
  private int emitPos;

  AggregateStream(HashAggregateExec plan, int partition, TaskContext ctx) {
    this.plan = plan;
    this.ctx = ctx;
    this.allocator = ctx.allocator();
    this.calls = plan.aggregates();
    this.batchSize = Math.max(1, ctx.batchSize());
    AggregateMode mode = plan.mode();
    this.rawInput = mode != AggregateMode.FINAL;
    this.partialOutput = mode == AggregateMode.PARTIAL;
    List<Field> keyFields = HashAggregateExec.groupKeyFields(plan.groupExprs(), plan.groupNames());
    this.table = new GroupTable(keyFields);
    this.accs = new Accumulator[calls.size()];
    this.stateOffsets = new int[calls.size()];
    List<Field> stateFields = new ArrayList<>(keyFields);
    boolean anyDistinct = false;
    for (int c = 0; c < calls.size(); c++) {
      accs[c] = Accumulators.create(calls.get(c), allocator);
      stateOffsets[c] = stateFields.size();
      anyDistinct |= calls.get(c).needsRawRows();
      if (!calls.get(c).needsRawRows()) {
        stateFields.addAll(Accumulators.stateFields(calls.get(c)));
      }
    }
    this.spillable = !keyFields.isEmpty() && !anyDistinct;
    this.clustered = partialOutput && spillable ? new ClusteredKeys() : null;
    this.probeRows =
        partialOutput && spillable
            ? ctx.config().get(BindingSettings.PARTIAL_AGGREGATION_PROBE_ROWS)
            : 0;
    this.skipPercent = ctx.config().get(BindingSettings.PARTIAL_AGGREGATION_SKIP_PERCENT);
    this.stateSchema = new Schema(stateFields);
    List<Field> spillFields = new ArrayList<>(stateFields);
    spillFields.add(HASH_FIELD);
    this.spillSchema = new Schema(spillFields);
    this.reservation =
        ctx.memoryPool().newReservation("HashAggregateExec[partition " + partition + "]");
    startGroups();
    this.in = plan.input().execute(partition, ctx);
  }

  @Override
  public Schema schema() {
    return plan.schema();
  }

  @Override
  public VectorSchemaRoot next() {
    if (closed) {
      return null;
    }
    try {
      return advance();
    } catch (OutOfMemoryException e) {
      throw new ResourcesExhaustedException(
          "Resources exhausted: "
              + reservation.consumer()
              + " could not allocate Arrow memory ("
              + e.getMessage()
              + "); raise quiver.execution.memory_limit or lower the query's input size",
          e);
    }
  }

  private VectorSchemaRoot advance() {
    while (true) {
      if (draining) {
        if (emitPos < table.size()) {
          return emitChunk();
        }
        draining = false;
        resetGroups();
      }
      if (finished) {
        return null;
      }
      if (!inputDone) {
        ctx.checkCancelled();
        VectorSchemaRoot batch = in.next();
        if (batch == null) {
          inputDone = true;
          in.close();
          onInputDone();
          continue;
        }
        try (batch) {
          rowsRead += batch.getRowCount();
          rowsInTable += batch.getRowCount();
          if (rawInput) {
            consumeRaw(batch);
          } else {
            consumeState(batch);
          }
        }
        checkMemory();
        if (!draining && clustered != null && clustered.restart(table.size())) {
          // Keys arrive clustered: the groups so far will not come back (ClusteredKeys).
          draining = true;
        }
        if (!draining && (batchAtATime || reducesTooLittle())) {
          // The FINAL aggregate merges these groups anyway: a table kept across batches would
          // grow towards every key of the input, at a cache miss a row, and reduce little.
          batchAtATime = true;
          draining = table.size() > 0;
        }
        continue;
      }
      if (merging) {
        ctx.checkCancelled();
        if (mergeStep()) {
          if (table.size() >= batchSize || !reserveEstimate()) {
            draining = true;
          }
        } else {
          closeRuns();
          deleteSpills();
          merging = false;
          finished = true;
          draining = true;
        }
        continue;
      }
      finished = true;
    }
  }

  private void onInputDone() {
    if (spills.isEmpty()) {
      finished = true;
      draining = true;
      return;
    }
    if (table.size() > 0) {
      spill();
    }
    try {
      for (Path p : spills) {
        runs.add(new SpillRun(p, allocator, spillSchema.getFields().size() - 1));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read aggregation spill file", e);
    }
    merging = true;
  }

  /**
   * Whether this PARTIAL aggregate, having read its probe rows, holds more groups than {@code
   * skipPercent} per hundred rows of its table (DataFusion's skip_partial_aggregation_probe_*):
   * asked once, when the rows read first reach the probe rows.
   */
  private boolean reducesTooLittle() {
    if (probed || probeRows <= 0 || rowsRead < probeRows) {
      return false;
    }
    probed = true;
    return rowsInTable > 0 && table.size() * 100L > rowsInTable * skipPercent;
  }

  // ---- consuming ----

  private void consumeRaw(VectorSchemaRoot batch) {
    int rows = batch.getRowCount();
    if (rows == 0) {
      return;
    }
    ensureGids(rows);
    Map<PhysicalExpr, FieldVector> evaluated = new HashMap<>();
    List<FieldVector> owned = new ArrayList<>();
    try {
      List<FieldVector> keys = new ArrayList<>();
      for (PhysicalExpr e : plan.groupExprs()) {
        keys.add(eval(e, batch, evaluated, owned));
      }
      int groupsBefore = table.size();
      table.findOrInsert(keys, rows, null, gids);
      int groups = table.size();
      if (clustered != null) {
        clustered.observe(gids, rows, groupsBefore);
      }
      for (int c = 0; c < calls.size(); c++) {
        AggregateCall call = calls.get(c);
        FieldVector[] args = new FieldVector[call.args().size()];
        for (int a = 0; a < args.length; a++) {
          args[a] = eval(call.args().get(a), batch, evaluated, owned);
        }
        boolean[] use = null;
        if (call.filter() != null) {
          FieldVector f = eval(call.filter(), batch, evaluated, owned);
          use = new boolean[rows];
          long[] v = Vectors.longs(f, rows, null);
          boolean[] nulls = nullScratch(rows);
          Vectors.nulls(f, rows, nulls);
          for (int i = 0; i < rows; i++) {
            use[i] = v[i] != 0 && !nulls[i];
          }
        }
        // SINGLE_VALUE counts rows with NULL arguments too; it skips their values itself.
        // ORDER BY keys of string_agg(s, ',' ORDER BY k) may be NULL; a percentile's key is its
        // value.
        int checked =
            call.function() == AggregateFunction.SINGLE_VALUE
                ? 0
                : call.function().holistic() ? args.length : call.valueArgCount();
        for (FieldVector arg : java.util.Arrays.copyOf(args, checked)) {
          boolean[] nulls = nullScratch(rows);
          if (Vectors.nulls(arg, rows, nulls)) {
            if (use == null) {
              use = new boolean[rows];
              Arrays.fill(use, 0, rows, true);
            }
            for (int i = 0; i < rows; i++) {
              use[i] &= !nulls[i];
            }
          }
        }
        accs[c].ensureCapacity(groups);
        accs[c].update(args, gids, rows, use);
      }
    } finally {
      Batches.closeAll(owned);
    }
  }

  private FieldVector eval(
      PhysicalExpr e,
      VectorSchemaRoot batch,
      Map<PhysicalExpr, FieldVector> evaluated,
      List<FieldVector> owned) {
    FieldVector v = evaluated.get(e);
    if (v == null) {
      v = e.evaluate(batch, allocator);
      owned.add(v);
      evaluated.put(e, v);
    }
    return v;
  }

  /** Folds a batch laid out as keys then state columns (PARTIAL output or a spill run). */
  private void consumeState(VectorSchemaRoot batch) {
    int rows = batch.getRowCount();
    if (rows == 0) {
      return;
    }
    ensureGids(rows);
    int k = table.keyCount();
    List<FieldVector> keys = new ArrayList<>(k);
    for (int i = 0; i < k; i++) {
      keys.add(batch.getVector(i));
    }
    table.findOrInsert(keys, rows, null, gids);
    int groups = table.size();
    for (int c = 0; c < calls.size(); c++) {
      int n = Accumulators.stateFields(calls.get(c)).size();
      FieldVector[] st = new FieldVector[n];
      for (int j = 0; j < n; j++) {
        st[j] = batch.getVector(stateOffsets[c] + j);
      }
      accs[c].ensureCapacity(groups);
      accs[c].merge(st, gids, rows);
    }
  }

  private boolean[] nullScratch(int rows) {
    if (nullBuf.length < rows) {
      nullBuf = new boolean[rows];
    }
    return nullBuf;
  }

  private void ensureGids(int rows) {
    if (gids.length < rows) {
      gids = new int[rows];
    }
  }

  // ---- memory ----

  private long estimate() {
    long b = table.estimatedBytes() + (long) gids.length * 4;
    for (Accumulator a : accs) {
      b += a.estimatedBytes();
    }
    return b;
  }

  /** Brings the reservation up to the current estimate; false when the pool refused. */
  private boolean reserveEstimate() {
    long need = estimate() - reservation.size();
    return need <= 0 || reservation.tryGrow(need);
  }

  private void checkMemory() {
    if (reserveEstimate()) {
      return;
    }
    if (!spillable || table.size() == 0) {
      reservation.grow(estimate() - reservation.size()); // throws ResourcesExhaustedException
      return;
    }
    if (partialOutput) {
      // Partial aggregation may emit what it has and start over: FINAL merges duplicates.
      draining = true;
    } else {
      spill();
    }
  }

  private void startGroups() {
    if (table.keyCount() == 0) {
      table.findOrInsert(
          List.of(), 0, null, gids); // the single global group exists even for no rows
      for (Accumulator a : accs) {
        a.ensureCapacity(1);
      }
    }
  }

  private void resetGroups() {
    table.reset();
    for (Accumulator a : accs) {
      a.reset();
    }
    emitPos = 0;
    rowsInTable = 0;
    long est = estimate();
    if (reservation.size() > est) {
      reservation.shrink(reservation.size() - est);
    }
  }

  // ---- output ----

  private int[] ids(int from, int count) {
    if (chunkIds.length < count) {
      chunkIds = new int[count];
    }
    for (int i = 0; i < count; i++) {
      chunkIds[i] = from + i;
    }
    return chunkIds;
  }

  private VectorSchemaRoot emitChunk() {
    int count = Math.min(batchSize, table.size() - emitPos);
    int[] ids = ids(emitPos, count);
    emitPos += count;
    List<FieldVector> cols = columns(ids, count, partialOutput);
    return new VectorSchemaRoot(partialOutput ? stateSchema : plan.schema(), cols, count);
  }

  /** Key columns then, per call, its state columns or its final value, for groups ids[0..n). */
  private List<FieldVector> columns(int[] ids, int n, boolean state) {
    List<FieldVector> cols = new ArrayList<>();
    try {
      for (int c = 0; c < table.keyCount(); c++) {
        cols.add(table.emitKey(c, ids, n, allocator));
      }
      for (Accumulator a : accs) {
        if (state) {
          cols.addAll(a.emitState(ids, n, allocator));
        } else {
          cols.add(a.emitFinal(ids, n, allocator));
        }
      }
      return cols;
    } catch (RuntimeException e) {
      Batches.closeAll(cols);
      throw e;
    }
  }

  // ---- spilling ----

  private void spill() {
    int n = table.size();
    long[] order = new long[n];
    for (int g = 0; g < n; g++) {
      order[g] = ((long) table.hashOf(g) << 32) | g;
    }
    Arrays.sort(order);
    int[] sorted = new int[n];
    for (int i = 0; i < n; i++) {
      sorted[i] = (int) order[i];
    }
    Path file;
    try {
      Files.createDirectories(ctx.spillDirectory());
      String prefix = "quiver-agg-" + ctx.queryId().replaceAll("[^A-Za-z0-9_.-]", "_") + "-";
      file = Files.createTempFile(ctx.spillDirectory(), prefix, ".arrow");
    } catch (IOException e) {
      throw new QuiverException(
          "Could not create a spill file in "
              + ctx.spillDirectory()
              + "; set quiver.execution.spill_directory to a writable directory",
          e);
    }
    spills.add(file);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE);
        VectorSchemaRoot root = VectorSchemaRoot.create(spillSchema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, ch)) {
      writer.start();
      // Runs are merged with one batch of each open at once, so small spill batches keep the
      // merge's memory low even when a large aggregation spilled many runs.
      int spillBatch = Math.min(batchSize, SPILL_BATCH_ROWS);
      int[] ids = new int[Math.min(spillBatch, Math.max(n, 1))];
      long[] hashes = new long[ids.length];
      for (int off = 0; off < n; off += spillBatch) {
        int count = Math.min(spillBatch, n - off);
        System.arraycopy(sorted, off, ids, 0, count);
        for (int i = 0; i < count; i++) {
          hashes[i] = table.hashOf(ids[i]);
        }
        List<FieldVector> cols = columns(ids, count, true);
        cols.add(Vectors.fromLongs(HASH_FIELD, hashes, null, count, allocator));
        try {
          for (int c = 0; c < cols.size(); c++) {
            cols.get(c).makeTransferPair(root.getVector(c)).transfer();
          }
          root.setRowCount(count);
          writer.writeBatch();
        } finally {
          Batches.closeAll(cols);
        }
      }
      writer.end();
    } catch (IOException e) {
      throw new QuiverException(
          "Could not write aggregation spill file "
              + file
              + "; check free space in quiver.execution.spill_directory",
          e);
    }
    try {
      plan.metrics().recordSpill(Files.size(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    resetGroups();
  }

  /**
   * Folds every spilled row whose hash is at most the smallest "last hash" among the runs' current
   * batches. Afterwards every remaining row hashes higher than every group in the table, so the
   * table may be emitted and cleared. Returns false when all runs are exhausted.
   */
  private boolean mergeStep() {
    int bound = Integer.MAX_VALUE;
    boolean any = false;
    for (SpillRun r : runs) {
      if (!r.done) {
        any = true;
        bound = Math.min(bound, r.hashAt(r.root.getRowCount() - 1));
      }
    }
    if (!any) {
      return false;
    }
    for (SpillRun r : runs) {
      while (!r.done) {
        int rows = r.root.getRowCount();
        int end = r.upperBound(bound);
        if (end > r.pos) {
          try (VectorSchemaRoot slice = Batches.slice(r.root, r.pos, end - r.pos, allocator)) {
            consumeState(slice);
          }
          r.pos = end;
        }
        if (r.pos < rows) {
          break;
        }
        r.advance();
      }
    }
    return true;
  }

  private void closeRuns() {
    Batches.closeAll(runs);
    runs.clear();
  }

  private void deleteSpills() {
    for (Path p : spills) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException e) {
        // Best effort: the file lives in the spill directory and holds no user-visible state.
      }
    }
    spills.clear();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (in != null) {
        in.close();
      }
    } finally {
      closeRuns();
      deleteSpills();
      table.reset();
      for (Accumulator a : accs) {
        a.reset();
      }
      reservation.close();
    }
  }

  /** A spill file being read back in hash order. */
  private static final class SpillRun implements AutoCloseable {
    private final ArrowStreamReader reader;
    private final VectorSchemaRoot root;
    private final int hashColumn;
    private int pos;
    private boolean done;

    SpillRun(Path path, BufferAllocator allocator, int hashColumn) throws IOException {
      this.reader =
          new ArrowStreamReader(FileChannel.open(path, StandardOpenOption.READ), allocator);
      this.root = reader.getVectorSchemaRoot();
      this.hashColumn = hashColumn;
      advance();
    }

    void advance() {
      try {
        while (reader.loadNextBatch()) {
          if (root.getRowCount() > 0) {
            pos = 0;
            return;
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Could not read aggregation spill file", e);
      }
      done = true;
    }

    int hashAt(int i) {
      return ((IntVector) root.getVector(hashColumn)).getDataBuffer().getInt((long) i * 4);
    }

    /** First row at or after pos whose hash exceeds {@code bound}. */
    int upperBound(int bound) {
      int lo = pos;
      int hi = root.getRowCount();
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (hashAt(mid) <= bound) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    }

    @Override
    public void close() {
      try {
        reader.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
