package dev.quiver.executor.shuffle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LinkPaceTest {
  private static final long MS = 1_000_000L;
  private static final long MIB = 1L << 20;

  private final AtomicLong now = new AtomicLong(1_000 * MS);
  private final LinkPace pace = new LinkPace(now::get);

  /** Sends {@code batches} of 1 MiB, each taking {@code busyMs} of work after {@code waitMs}. */
  private void send(LinkPace.Stream stream, int batches, long waitMs, long busyMs) {
    for (int i = 0; i < batches; i++) {
      now.addAndGet((waitMs + busyMs) * MS);
      stream.sent(MIB, waitMs * MS);
    }
  }

  @Test
  void aStreamTheLinkHoldsBackCompressesFromThenOn() {
    LinkPace.Stream stream = pace.start(true);
    assertThat(stream.compress()).isFalse();
    send(stream, 1, 8, 1);
    assertThat(stream.compress()).as("judged only after 2 MiB").isFalse();
    send(stream, 1, 8, 1);
    assertThat(stream.compress()).isTrue();
  }

  @Test
  void aStreamIsJudgedAgainOverEachRunOfBytes() {
    LinkPace.Stream stream = pace.start(true);
    send(stream, 4, 0, 1);
    assertThat(stream.compress()).as("the first bytes went into buffers").isFalse();
    send(stream, 2, 8, 1);
    assertThat(stream.compress()).isTrue();
  }

  @Test
  void aStreamThatHardlyWaitsStaysPlain() {
    LinkPace.Stream stream = pace.start(true);
    send(stream, 10, 1, 9);
    assertThat(stream.compress()).isFalse();
    assertThat(pace.start(true).compress()).isFalse();
  }

  @Test
  void aStreamWhoseConsumerIsNotStarvedNeverCompresses() {
    LinkPace.Stream stream = pace.start(false);
    send(stream, 10, 8, 1);
    assertThat(stream.compress()).as("the consumer, not the link, is slow").isFalse();
    assertThat(pace.start(true).compress()).as("nor does it make others compress").isFalse();
  }

  @Test
  void smallStreamsAreNeverJudged() {
    LinkPace.Stream stream = pace.start(true);
    now.addAndGet(100 * MS);
    stream.sent(MIB, 100 * MS);
    assertThat(stream.compress()).isFalse();
    assertThat(pace.start(true).compress()).isFalse();
  }

  @Test
  void newStreamsStartCompressedForAWhileAfterALinkBoundOne() {
    send(pace.start(true), 2, 8, 1);
    LinkPace.Stream next = pace.start(true);
    assertThat(next.compress()).isTrue();
    now.addAndGet(LinkPace.MEMORY_NANOS - MS);
    assertThat(pace.start(true).compress()).isTrue();
    now.addAndGet(2 * MS);
    assertThat(pace.start(true).compress()).as("the memory ran out").isFalse();
  }

  @Test
  void aCompressedStreamStillHeldBackExtendsTheMemory() {
    send(pace.start(true), 2, 8, 1);
    now.addAndGet(LinkPace.MEMORY_NANOS / 2);
    LinkPace.Stream compressed = pace.start(true);
    send(compressed, 2, 8, 1);
    now.addAndGet(LinkPace.MEMORY_NANOS - 100 * MS);
    assertThat(pace.start(true).compress()).isTrue();
  }

  @Test
  void aCompressedStreamNoLongerHeldBackLetsTheMemoryRunOut() {
    send(pace.start(true), 2, 8, 1);
    LinkPace.Stream compressed = pace.start(true);
    send(compressed, 4, 0, 5);
    assertThat(compressed.compress()).as("a stream never goes back to plain").isTrue();
    now.addAndGet(LinkPace.MEMORY_NANOS);
    assertThat(pace.start(true).compress()).isFalse();
  }
}
