package dev.quiver.distributed.shuffle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConsumerPaceTest {
  private static final long MS = 1_000_000L;
  private static final long MIB = 1L << 20;

  private final AtomicLong now = new AtomicLong(1_000 * MS);
  private final ConsumerPace pace = new ConsumerPace(now::get);

  /**
   * Receives {@code batches} of 1 MiB, each after waiting {@code waitMs}, then busy {@code busyMs}.
   */
  private void receive(ConsumerPace.Stream stream, int batches, long waitMs, long busyMs) {
    for (int i = 0; i < batches; i++) {
      now.addAndGet(waitMs * MS);
      stream.received(MIB, waitMs * MS);
      now.addAndGet(busyMs * MS);
    }
  }

  @Test
  void aStreamWaitingOnDataMakesTheProcessStarvedForAWhile() {
    assertThat(pace.starved()).isFalse();
    receive(pace.start(), 2, 9, 1);
    assertThat(pace.starved()).isTrue();
    now.addAndGet(ConsumerPace.MEMORY_NANOS);
    assertThat(pace.starved()).as("the memory ran out").isFalse();
  }

  @Test
  void aBusyConsumerIsNotStarved() {
    receive(pace.start(), 10, 1, 9);
    assertThat(pace.starved()).isFalse();
  }

  @Test
  void aStreamJudgedFedEndsTheStarvation() {
    receive(pace.start(), 2, 9, 1);
    receive(pace.start(), 2, 1, 9);
    assertThat(pace.starved()).isFalse();
  }

  @Test
  void lessThanTheJudgedBytesSaysNothing() {
    receive(pace.start(), 1, 100, 0);
    assertThat(pace.starved()).isFalse();
  }
}
