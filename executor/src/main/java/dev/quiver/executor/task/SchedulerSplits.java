package dev.quiver.executor.task;

import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.SplitSource;
import dev.quiver.binding.physical.SplitSources;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.scan.FileScanExec;
import dev.quiver.distributed.codec.PlanCodecException;
import dev.quiver.distributed.planner.SplitStealing;
import dev.quiver.distributed.proto.NextSplitsRequest;
import dev.quiver.distributed.proto.NextSplitsResponse;
import dev.quiver.distributed.proto.TaskId;
import io.grpc.Status;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The split sources of one task attempt whose stage has scans with splits handed out at run time
 * (work stealing): such a scan's partition takes its splits from the scheduler ({@code NextSplits})
 * instead of the plan. Each source asks for its first two splits when the attempt starts, before
 * the plan is decoded. After that it asks, each time, for as many splits as it reads in {@link
 * #HOLD_NANOS} at the speed measured so far over splits read to the end (one at least, {@value
 * #MAX_WANT} at most, one while no split was read to the end): small splits then cost a call per
 * batch, not per split (a call per row group doubled an executor's CPU on TPC-H q6), while a slow
 * task holds no more than that much of its own reading that a faster one could have done. It asks
 * for the next batch as it starts reading the last split it holds only while the call takes a
 * noticeable share of that batch's reading time (over 1/{@value #PREFETCH_RATIO}), as over a
 * network; otherwise it asks when it needs one and waits that short call. Other scans read their
 * planned splits.
 */
final class SchedulerSplits implements SplitSources {

  /** Splits wanted at once: one to read now, one in reserve. */
  static final int FIRST_WANT = 2;

  /** Splits are asked for in advance while reading a batch takes under this many round trips. */
  static final int PREFETCH_RATIO = 20;

  /** How much reading a task asks for at once, once its speed is known. */
  static final long HOLD_NANOS = 50_000_000L;

  /** The most splits asked for at once. */
  static final int MAX_WANT = 64;

  private final TaskId task;
  private final Map<Integer, Fetched> byScan = new LinkedHashMap<>();
  private final Map<ExecutionPlan, Fetched> byNode = new IdentityHashMap<>();

  /**
   * Starts fetching the splits of {@code scans} (positions among the stage plan's file scans) for
   * attempt {@code task} on {@code executorId}.
   */
  SchedulerSplits(
      TaskId task,
      String executorId,
      List<Integer> scans,
      Function<NextSplitsRequest, CompletableFuture<NextSplitsResponse>> scheduler,
      TaskContext context) {
    this(task, executorId, scans, scheduler, context, System::nanoTime);
  }

  /** As above, timing splits and calls on {@code clock} (nanoseconds). */
  SchedulerSplits(
      TaskId task,
      String executorId,
      List<Integer> scans,
      Function<NextSplitsRequest, CompletableFuture<NextSplitsResponse>> scheduler,
      TaskContext context,
      LongSupplier clock) {
    this.task = task;
    for (int scan : scans) {
      Fetched f = new Fetched(task, executorId, scan, scheduler, clock);
      byScan.put(scan, f);
      context.onCancel(f::cancel);
      f.request(FIRST_WANT);
    }
  }

  /**
   * Ties each fetched scan to its node in the decoded stage plan {@code root}.
   *
   * @throws PlanCodecException when the plan has no such file scan
   */
  void bind(ExecutionPlan root) {
    List<FileScanExec> scans = SplitStealing.fileScans(root);
    for (Map.Entry<Integer, Fetched> e : byScan.entrySet()) {
      if (e.getKey() >= scans.size()) {
        throw new PlanCodecException(
            "the launch of task "
                + describe(task)
                + " takes the splits of file scan "
                + e.getKey()
                + " from the scheduler, but its stage plan has "
                + scans.size()
                + " file scans");
      }
      byNode.put(scans.get(e.getKey()), e.getValue());
    }
  }

  /** Splits the scheduler handed this attempt so far, over all its scans. */
  int received() {
    int n = 0;
    for (Fetched f : byScan.values()) {
      n += f.received;
    }
    return n;
  }

  @Override
  public SplitSource open(ExecutionPlan scan, int partition, int[] planned) {
    Fetched f = byNode.get(scan);
    if (f == null) {
      return SplitSource.of(planned);
    }
    // The planner hands a scan's splits out only when task t alone executes its partition t;
    // anything else would read a split twice or never, so it fails rather than answer wrong.
    if (partition != task.getTaskId()) {
      throw new IllegalStateException(
          "task "
              + describe(task)
              + " executes partition "
              + partition
              + " of file scan "
              + f.scan
              + ", whose splits the scheduler hands out to partition "
              + task.getTaskId()
              + " only");
    }
    if (f.opened) {
      throw new IllegalStateException(
          "task " + describe(task) + " executes file scan " + f.scan + " twice");
    }
    f.opened = true;
    return f;
  }

  private static String describe(TaskId id) {
    return id.getJobId() + "/" + id.getStageId() + "/" + id.getTaskId() + "#" + id.getAttempt();
  }

  /** The splits of one scan for this attempt, as the scheduler hands them out. */
  private static final class Fetched implements SplitSource {
    private final TaskId task;
    private final String executorId;
    private final int scan;
    private final Function<NextSplitsRequest, CompletableFuture<NextSplitsResponse>> scheduler;
    private final ArrayDeque<Integer> ready = new ArrayDeque<>();
    private final LongSupplier clock;

    /** Splits received: this attempt's position in its task's list. */
    private int received;

    private boolean last;
    private boolean opened;

    /** Splits the scan took, and when it took the first. */
    private int taken;

    private long firstTookNanos;

    /**
     * Splits read to the end: those taken before the latest run of splits read together began,
     * which began at {@code runStartNanos}.
     */
    private int completed;

    private long runStartNanos;

    /** When the request under way was sent, and a running mean of the calls' round trips. */
    private long requestedNanos;

    private volatile long answeredNanos;
    private long roundTripNanos;

    /** The request under way, or null; completed exceptionally on cancellation (any thread). */
    private volatile CompletableFuture<NextSplitsResponse> inFlight;

    private volatile boolean cancelled;

    Fetched(
        TaskId task,
        String executorId,
        int scan,
        Function<NextSplitsRequest, CompletableFuture<NextSplitsResponse>> scheduler,
        LongSupplier clock) {
      this.task = task;
      this.executorId = executorId;
      this.scan = scan;
      this.scheduler = scheduler;
      this.clock = clock;
    }

    void request(int want) {
      CompletableFuture<NextSplitsResponse> f;
      try {
        f =
            scheduler.apply(
                NextSplitsRequest.newBuilder()
                    .setTask(task)
                    .setExecutorId(executorId)
                    .setScan(scan)
                    .setReceived(received)
                    .setWant(want)
                    .build());
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      requestedNanos = clock.getAsLong();
      f.whenComplete((answer, failure) -> answeredNanos = clock.getAsLong());
      inFlight = f;
      if (cancelled) {
        cancel();
      }
    }

    void cancel() {
      cancelled = true;
      CompletableFuture<NextSplitsResponse> f = inFlight;
      if (f != null) {
        f.cancel(false);
      }
    }

    @Override
    public int next() {
      return take(false);
    }

    @Override
    public int takeAtHand() {
      return take(true);
    }

    /** The next split; {@code together}: read with the one before, as one run. */
    private int take(boolean together) {
      absorb(false);
      while (ready.isEmpty() && !last) {
        if (inFlight == null) {
          request(want());
        }
        absorb(true);
      }
      if (ready.isEmpty()) {
        return -1;
      }
      int split = ready.poll();
      long now = clock.getAsLong();
      if (taken == 0) {
        firstTookNanos = now;
      }
      // Splits read together (adjacent row groups, one range) are taken one after the other before
      // any is read: only the start of a new run says the splits before it are done.
      if (!together) {
        completed = taken;
        runStartNanos = now;
      }
      taken++;
      if (ready.isEmpty() && !last && inFlight == null && worthPrefetching()) {
        request(want());
      }
      return split;
    }

    /**
     * The mean time per split read to the end so far, -1 before any was. Measured up to the start
     * of the latest run: two splits taken together at the start took no time to read, and a task
     * that counted them so would ask for {@link #MAX_WANT} splits and hold them while it slows
     * down.
     */
    private long splitNanos() {
      return completed == 0 ? -1 : Math.max(1, (runStartNanos - firstTookNanos) / completed);
    }

    /** Splits to ask for: {@link #HOLD_NANOS} of reading at the speed measured so far. */
    private int want() {
      long split = splitNanos();
      return split < 0 ? 1 : (int) Math.max(1, Math.min(MAX_WANT, HOLD_NANOS / split));
    }

    /** Whether waiting for the next batch's call would cost a noticeable share of reading it. */
    private boolean worthPrefetching() {
      long split = splitNanos();
      return split < 0 || roundTripNanos * PREFETCH_RATIO > split * want();
    }

    private static long mean(long average, long sample) {
      return average == 0 ? sample : (average + sample) / 2;
    }

    @Override
    public int peekAtHand() {
      // A split already held is this task's anyway: reading it with the current one is free.
      absorb(false);
      return ready.isEmpty() ? -1 : ready.peekFirst();
    }

    @Override
    public void close() {
      // A request under way is left to finish: its splits stay this task's, read by a later
      // attempt should this one fail.
      ready.clear();
      last = true;
    }

    /** Takes the answer of the request under way, when it came ({@code wait}: waits for it). */
    private void absorb(boolean wait) {
      CompletableFuture<NextSplitsResponse> f = inFlight;
      if (f == null || (!wait && !f.isDone())) {
        return;
      }
      NextSplitsResponse answer;
      try {
        answer = f.get();
      } catch (CancellationException e) {
        throw new QueryCancelledException(
            "task " + SchedulerSplits.describe(task) + " was cancelled while fetching splits");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new QueryCancelledException(
            "task " + SchedulerSplits.describe(task) + " was interrupted while fetching splits");
      } catch (ExecutionException | CompletionException e) {
        throw failure(e.getCause() == null ? e : e.getCause());
      }
      inFlight = null;
      // The completion callback may not have run yet: the answer came no later than now.
      long answered = answeredNanos;
      long roundTrip = (answered >= requestedNanos ? answered : clock.getAsLong()) - requestedNanos;
      roundTripNanos = mean(roundTripNanos, Math.max(1, roundTrip));
      ready.addAll(answer.getSplitsList());
      received += answer.getSplitsCount();
      last = answer.getLast();
    }

    private RuntimeException failure(Throwable cause) {
      Status status = Status.fromThrowable(cause);
      boolean retryable =
          switch (status.getCode()) {
            case UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED -> true;
            default -> false;
          };
      return new SplitFetchException(
          "task "
              + SchedulerSplits.describe(task)
              + " could not get the next splits of file scan "
              + scan
              + " from the scheduler: "
              + status.getCode()
              + (status.getDescription() == null ? "" : " " + status.getDescription()),
          retryable,
          cause);
    }
  }
}
