package dev.quiver.binding.physical;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import org.junit.jupiter.api.Test;

class MemoryPoolTest {
  private static final long LIMIT = 4L << 20;

  /**
   * Spillable consumers reserve until the pool refuses, as spilling join partitions do, down to
   * single bytes so that nothing a spillable consumer could take is left.
   */
  private static void fillBySpillableConsumers(MemoryPool pool) {
    int p = 0;
    for (long chunk : new long[] {64 * 1024 + 17, 1024, 1}) {
      MemoryReservation join = pool.newReservation("HashJoinExec[partition " + p++ + "]");
      while (join.tryGrow(chunk)) {
        // keeps reserving, as a build side does until the pool says spill
      }
    }
  }

  /**
   * JoinSpillTest failed in CI with "HashAggregateExec[partition 0] asked for 9280 bytes but the
   * query memory pool has 1316 of 4194304 bytes free": three spilling join partitions had taken the
   * pool to its last bytes, and the aggregation above them, with no groups to spill yet, could not
   * start.
   */
  @Test
  void spillableConsumersLeaveHeadroomForOneThatCannotSpill() {
    MemoryPool pool = new MemoryPool(LIMIT);
    fillBySpillableConsumers(pool);

    MemoryReservation aggregate = pool.newReservation("HashAggregateExec[partition 0]");
    assertThat(aggregate.tryGrow(1)).as("spillable growth stops short of the headroom").isFalse();
    aggregate.grow(9280);
    assertThat(aggregate.size()).isEqualTo(9280);
  }

  @Test
  void growBeyondTheWholePoolStillFailsWithATypedError() {
    MemoryPool pool = new MemoryPool(LIMIT);
    fillBySpillableConsumers(pool);
    MemoryReservation window = pool.newReservation("WindowExec[partition 1]");
    window.grow(pool.headroom() / 2);
    assertThatThrownBy(() -> window.grow(pool.headroom()))
        .isInstanceOf(ResourcesExhaustedException.class)
        .hasMessageContaining("WindowExec[partition 1] asked for")
        .hasMessageContaining("quiver.execution.memory_limit");
  }

  @Test
  void closingGivesEveryByteBack() {
    MemoryPool pool = new MemoryPool(LIMIT);
    MemoryReservation sort = pool.newReservation("SortExec[partition 0]");
    assertThat(sort.tryGrow(LIMIT - pool.headroom())).isTrue();
    assertThat(sort.tryGrow(1)).isFalse();
    sort.grow(pool.headroom());
    assertThat(pool.reserved()).isEqualTo(LIMIT);
    sort.close();
    assertThat(pool.reserved()).isZero();
  }

  @Test
  void anUnboundedPoolHasNoHeadroom() {
    MemoryPool pool = new MemoryPool(Long.MAX_VALUE);
    assertThat(pool.headroom()).isZero();
    assertThat(pool.newReservation("x").tryGrow(1L << 40)).isTrue();
  }
}
