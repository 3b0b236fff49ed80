package dev.quiver.executor.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.distributed.proto.JobMemory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class QueryMemoryTest {
  private static final long MB = 1 << 20;

  private BufferAllocator root;
  private BufferAllocator executor;
  private final AtomicInteger blockedCalls = new AtomicInteger();

  @BeforeEach
  void open() {
    root = new RootAllocator();
    executor = root.newChildAllocator("executor", 0, 4 * MB);
  }

  @AfterEach
  void close() {
    executor.close();
    root.close();
  }

  private QueryMemory memory(long waitMillis) {
    return new QueryMemory("e1", executor, waitMillis, blockedCalls::incrementAndGet);
  }

  @Test
  void reportsWhatEachJobHoldsAndForgetsAJobWhoseTasksEnded() {
    QueryMemory memory = memory(1_000);
    QueryMemory.TaskMemory a1 = memory.open("a", "a/0", 0, () -> false);
    QueryMemory.TaskMemory a2 = memory.open("a", "a/1", 0, () -> false);
    QueryMemory.TaskMemory b = memory.open("b", "b/0", 0, () -> false);
    try (ArrowBuf x = a1.allocator().buffer(MB);
        ArrowBuf y = a2.allocator().buffer(MB);
        ArrowBuf z = b.allocator().buffer(MB / 2)) {
      assertThat(memory.report())
          .extracting(JobMemory::getJobId, JobMemory::getBytes)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple("a", 2 * MB),
              org.assertj.core.groups.Tuple.tuple("b", MB / 2));
    }
    for (QueryMemory.TaskMemory t : new QueryMemory.TaskMemory[] {a1, a2, b}) {
      t.allocator().close();
      t.close();
    }
    assertThat(memory.report()).isEmpty();
    assertThat(executor.getChildAllocators()).as("job allocators closed").isEmpty();
  }

  @Test
  void aJobOverItsLimitPerExecutorFailsWithTheTypedErrorAtOnce() {
    QueryMemory memory = memory(60_000);
    QueryMemory.TaskMemory task = memory.open("a", "a/0", MB, () -> false);
    long start = System.nanoTime();
    assertThatThrownBy(() -> task.allocator().buffer(2 * MB).close())
        .isInstanceOf(OutOfMemoryException.class);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .as("no wait for the killer")
        .isLessThan(5_000);
    assertThat(task.limitExceeded())
        .isNotNull()
        .hasMessageContaining("Query a exceeded its memory limit per executor of 1048576 bytes")
        .hasMessageContaining("quiver.query.max_memory_per_executor");
    assertThat(blockedCalls).hasValue(0);
    task.allocator().close();
    task.close();
  }

  @Test
  void aTaskFindingTheExecutorFullWaitsUntilMemoryIsGivenBack() throws Exception {
    QueryMemory memory = memory(60_000);
    QueryMemory.TaskMemory big = memory.open("big", "big/0", 0, () -> false);
    QueryMemory.TaskMemory small = memory.open("small", "small/0", 0, () -> false);
    ArrowBuf held = big.allocator().buffer(3 * MB);
    CompletableFuture<ArrowBuf> waiting =
        CompletableFuture.supplyAsync(() -> small.allocator().buffer(2 * MB));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!memory.blocked() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(memory.blocked()).as("the executor says it is out of memory").isTrue();
    assertThat(blockedCalls).hasValue(1);
    assertThat(waiting).isNotDone();
    held.close(); // what the killer's cancellation does
    try (ArrowBuf got = waiting.get(10, TimeUnit.SECONDS)) {
      assertThat(got.capacity()).isEqualTo(2 * MB);
    }
    assertThat(memory.blocked()).isFalse();
    assertThat(small.limitExceeded()).isNull();
    for (QueryMemory.TaskMemory t : new QueryMemory.TaskMemory[] {big, small}) {
      t.allocator().close();
      t.close();
    }
  }

  @Test
  void aCancelledTaskStopsWaiting() throws Exception {
    QueryMemory memory = memory(60_000);
    AtomicBoolean cancelled = new AtomicBoolean();
    QueryMemory.TaskMemory big = memory.open("big", "big/0", 0, cancelled::get);
    try (ArrowBuf held = big.allocator().buffer(3 * MB)) {
      CompletableFuture<ArrowBuf> waiting =
          CompletableFuture.supplyAsync(() -> big.allocator().buffer(2 * MB));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!memory.blocked() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      cancelled.set(true);
      assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(OutOfMemoryException.class);
    }
    big.allocator().close();
    big.close();
  }
}
