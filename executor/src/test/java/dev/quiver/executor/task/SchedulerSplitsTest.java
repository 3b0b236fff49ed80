package dev.quiver.executor.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.SplitSource;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.operator.UnionExec;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.NextSplitsRequest;
import dev.quiver.distributed.proto.NextSplitsResponse;
import dev.quiver.distributed.proto.TaskId;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A task's scans taking their splits from the scheduler, against a scripted scheduler. */
@Timeout(10)
class SchedulerSplitsTest {

  private static final Schema SCHEMA =
      new Schema(List.of(new Field("x", FieldType.nullable(new ArrowType.Int(64, true)), null)));

  private static final TaskId TASK =
      TaskId.newBuilder().setJobId("job").setStageId(1).setTaskId(1).setAttempt(2).build();

  private final RootAllocator allocator = new RootAllocator();
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final TaskContext context =
      new TaskContext("t", allocator, new MemoryPool(Long.MAX_VALUE), new SessionConfig(), threads);

  private final AtomicLong now = new AtomicLong();

  /** The requests made, each answered by completing its future. */
  private final List<NextSplitsRequest> requests = new ArrayList<>();

  private final List<CompletableFuture<NextSplitsResponse>> answers = new ArrayList<>();

  private final Function<NextSplitsRequest, CompletableFuture<NextSplitsResponse>> scheduler =
      request -> {
        CompletableFuture<NextSplitsResponse> f = new CompletableFuture<>();
        synchronized (requests) {
          requests.add(request);
          answers.add(f);
        }
        return f;
      };

  @AfterEach
  void tearDown() {
    context.close();
    threads.shutdownNow();
    allocator.close();
  }

  private static ParquetScanExec scan(String name) {
    return new ParquetScanExec(
        SCHEMA,
        List.of(List.of("/" + name + "0"), List.of("/" + name + "1")),
        null,
        OptionalLong.empty(),
        100);
  }

  private void answer(int request, boolean last, Integer... splits) {
    answers
        .get(request)
        .complete(
            NextSplitsResponse.newBuilder().addAllSplits(List.of(splits)).setLast(last).build());
  }

  /**
   * A scheduler that answers at once with splits 0 to {@code count - 1} in order, as many as asked,
   * showing each request to {@code seen} first.
   */
  private static Function<NextSplitsRequest, CompletableFuture<NextSplitsResponse>> answersAtOnce(
      int count, Consumer<NextSplitsRequest> seen) {
    return request -> {
      seen.accept(request);
      int from = request.getReceived();
      int to = Math.min(count, from + request.getWant());
      NextSplitsResponse.Builder r = NextSplitsResponse.newBuilder().setLast(to == count);
      for (int s = from; s < to; s++) {
        r.addSplits(s);
      }
      return CompletableFuture.completedFuture(r.build());
    };
  }

  /** Scan {@code a}'s source of task 1, its splits from {@link #answersAtOnce}, from time 1 us. */
  private SplitSource answeredAtOnce(
      ParquetScanExec a, int count, Consumer<NextSplitsRequest> seen) {
    now.set(1_000);
    SchedulerSplits splits =
        new SchedulerSplits(TASK, "e1", List.of(0), answersAtOnce(count, seen), context, now::get);
    splits.bind(a);
    return splits.open(a, 1, new int[] {1});
  }

  @Test
  void asksAtOnceThenKeepsOneSplitInReserveWhileCallsAreSlowNextToSplits() {
    ParquetScanExec a = scan("a");
    ParquetScanExec b = scan("b");
    ExecutionPlan root = new UnionExec(List.of(a, b));
    now.set(1_000);
    SchedulerSplits splits =
        new SchedulerSplits(TASK, "e1", List.of(1), scheduler, context, now::get);
    assertThat(requests).hasSize(1);
    assertThat(requests.get(0).getScan()).isEqualTo(1);
    assertThat(requests.get(0).getWant()).isEqualTo(SchedulerSplits.FIRST_WANT);
    assertThat(requests.get(0).getReceived()).isZero();
    assertThat(requests.get(0).getTask()).isEqualTo(TASK);
    assertThat(requests.get(0).getExecutorId()).isEqualTo("e1");
    splits.bind(root);

    // Scan 0 (a) is not handed out: it reads its plan.
    SplitSource planned = splits.open(a, 1, new int[] {7});
    assertThat(planned.next()).isEqualTo(7);

    SplitSource source = splits.open(b, 1, new int[] {1});
    now.set(101_000); // a round trip of 100 us
    assertThat(source.peekAtHand()).as("nothing is held yet").isEqualTo(-1);
    answer(0, false, 4, 2);
    now.set(200_000);
    assertThat(source.next()).isEqualTo(4);
    assertThat(source.peekAtHand()).as("a split held may be read with this one").isEqualTo(2);
    assertThat(requests).as("one split is still in reserve").hasSize(1);
    now.set(200_500); // taken with 4, to be read together with it
    assertThat(source.takeAtHand()).isEqualTo(2);
    assertThat(requests).as("the next split is asked for in advance").hasSize(2);
    assertThat(requests.get(1).getReceived()).isEqualTo(2);
    assertThat(requests.get(1).getWant())
        .as("no split was read to the end yet: its speed is unknown")
        .isEqualTo(1);
    assertThat(source.peekAtHand()).as("the next is under way").isEqualTo(-1);
    answer(1, false, 3);
    now.set(201_500); // 4 and 2 read in 1 us: a batch of 64 in under 20 round trips
    assertThat(source.next()).isEqualTo(3);
    assertThat(requests).as("the next batch is asked for in advance").hasSize(3);
    assertThat(requests.get(2).getWant())
        .as("as many splits as it reads in the hold time, at most MAX_WANT")
        .isEqualTo(SchedulerSplits.MAX_WANT);
    answer(2, true);
    assertThat(source.next()).isEqualTo(-1);
    assertThat(source.next()).isEqualTo(-1);
    assertThat(requests).hasSize(3);
    assertThat(splits.received()).isEqualTo(3);
  }

  @Test
  void asksOnlyWhenItNeedsASplitWhileSplitsTakeFarLongerThanCalls() {
    ParquetScanExec a = scan("a");
    List<Integer> asked = new ArrayList<>();
    SplitSource source = answeredAtOnce(a, 6, r -> asked.add(r.getReceived()));
    List<Integer> read = new ArrayList<>();
    int split;
    while ((split = source.next()) >= 0) {
      read.add(split);
      // Each split takes a second to read and a call answers at once: after the first two,
      // each split is asked for when the scan needs it, none held in reserve.
      if (read.size() == 1) {
        assertThat(asked).containsExactly(0);
      } else if (read.size() == 2) {
        assertThat(asked).isEmpty();
      } else {
        assertThat(asked).as("split %d", read.size()).containsExactly(read.size() - 1);
      }
      now.addAndGet(1_000_000_000L);
      asked.clear();
    }
    assertThat(read).containsExactly(0, 1, 2, 3, 4, 5);
  }

  @Test
  void splitsReadTogetherDoNotCountAsReadFast() {
    // The first two splits are adjacent row groups, taken together and read as one range: the
    // time between taking them says nothing of the speed. Counting it as a split read in no time
    // made the task ask for MAX_WANT splits at once and keep them, however slow it then turned
    // out to be (an executor held to a quarter core kept half a stage's splits from a fast one).
    ParquetScanExec a = scan("a");
    List<Integer> wanted = new ArrayList<>();
    SplitSource source = answeredAtOnce(a, 30, r -> wanted.add(r.getWant()));
    assertThat(source.next()).isZero();
    assertThat(source.peekAtHand()).isEqualTo(1);
    now.addAndGet(2_000);
    assertThat(source.takeAtHand()).isEqualTo(1);
    assertThat(wanted)
        .as("after the first two, taken together, one more split: the speed is not known")
        .containsExactly(SchedulerSplits.FIRST_WANT, 1);
    // Splits 0 and 1 took 10 ms to read, 5 ms each: 50 ms of reading is 10 splits.
    now.set(10_001_000);
    assertThat(source.next()).isEqualTo(2);
    now.addAndGet(5_000_000);
    assertThat(source.next()).isEqualTo(3);
    assertThat(wanted).containsExactly(SchedulerSplits.FIRST_WANT, 1, 10);
  }

  @Test
  void aScanHandedOutIsReadByItsTasksPartitionOnceOnly() {
    ParquetScanExec a = scan("a");
    SchedulerSplits splits = new SchedulerSplits(TASK, "e1", List.of(0), scheduler, context);
    splits.bind(a);
    assertThatThrownBy(() -> splits.open(a, 0, new int[] {0}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("partition 0");
    splits.open(a, 1, new int[] {1});
    assertThatThrownBy(() -> splits.open(a, 1, new int[] {1}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("twice");
    SchedulerSplits wrong = new SchedulerSplits(TASK, "e1", List.of(3), scheduler, context);
    assertThatThrownBy(() -> wrong.bind(a)).hasMessageContaining("has 1 file scans");
  }

  @Test
  void failuresAreTypedAndTransientOnesRetryable() {
    ParquetScanExec a = scan("a");
    SchedulerSplits splits = new SchedulerSplits(TASK, "e1", List.of(0), scheduler, context);
    splits.bind(a);
    SplitSource source = splits.open(a, 1, new int[] {1});
    answers.get(0).completeExceptionally(Status.UNAVAILABLE.asRuntimeException());
    assertThatThrownBy(source::next)
        .isInstanceOfSatisfying(SplitFetchException.class, e -> assertThat(e.retryable()).isTrue())
        .hasMessageContaining("UNAVAILABLE");

    SchedulerSplits gone = new SchedulerSplits(TASK, "e1", List.of(0), scheduler, context);
    gone.bind(a);
    SplitSource refused = gone.open(a, 1, new int[] {1});
    answers
        .get(1)
        .completeExceptionally(
            Status.FAILED_PRECONDITION.withDescription("not running").asRuntimeException());
    assertThatThrownBy(refused::next)
        .isInstanceOfSatisfying(SplitFetchException.class, e -> assertThat(e.retryable()).isFalse())
        .hasMessageContaining("not running");
  }

  @Test
  void cancellingTheTaskEndsAWaitForSplits() throws Exception {
    ParquetScanExec a = scan("a");
    SchedulerSplits splits = new SchedulerSplits(TASK, "e1", List.of(0), scheduler, context);
    splits.bind(a);
    SplitSource source = splits.open(a, 1, new int[] {1});
    CompletableFuture<Throwable> waited =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                source.next();
                return null;
              } catch (RuntimeException e) {
                return e;
              }
            },
            threads);
    Thread.sleep(50);
    context.cancel("test");
    assertThat(waited.get()).isInstanceOf(QueryCancelledException.class);
  }
}
