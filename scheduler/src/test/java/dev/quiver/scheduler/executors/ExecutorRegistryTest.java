package dev.quiver.scheduler.executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.scheduler.time.SchedulerClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ExecutorRegistryTest {

  private final AtomicLong nanos = new AtomicLong(1_000);
  private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);
  private final ExecutorRegistry registry =
      new ExecutorRegistry(Duration.ofSeconds(10), SchedulerClock.of(nanos::get, millis::get));

  private static ExecutorInfo executor(String id, int port) {
    return ExecutorInfo.newBuilder()
        .setExecutorId(id)
        .setHost("127.0.0.1")
        .setFlightPort(port)
        .setCores(4)
        .setMemoryBytes(1L << 30)
        .setVersion("test")
        .build();
  }

  private void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
    millis.addAndGet(d.toMillis());
  }

  @Test
  void registeredExecutorsAreListedAliveInIdOrder() {
    assertThat(registry.register(executor("b", 2))).isTrue();
    assertThat(registry.register(executor("a", 1))).isTrue();
    assertThat(registry.list(false))
        .extracting(s -> s.getInfo().getExecutorId(), ExecutorStatus::getState)
        .containsExactly(
            tuple("a", ExecutorState.EXECUTOR_STATE_ALIVE),
            tuple("b", ExecutorState.EXECUTOR_STATE_ALIVE));
  }

  @Test
  void aDrainingExecutorIsAliveButNotSchedulableUntilItRegistersAgain() {
    registry.register(executor("a", 1));
    registry.register(executor("b", 2));
    assertThat(registry.drain("a")).isTrue();
    assertThat(registry.drain("unknown")).isFalse();
    assertThat(registry.draining("a")).isTrue();
    assertThat(registry.schedulable()).extracting(ExecutorInfo::getExecutorId).containsExactly("b");
    assertThat(registry.list(false))
        .extracting(s -> s.getInfo().getExecutorId(), ExecutorStatus::getDraining)
        .containsExactly(tuple("a", true), tuple("b", false));
    // Heartbeats keep it alive (its outputs are still served) and draining.
    advance(Duration.ofSeconds(8));
    assertThat(registry.heartbeat("a", 1, 10)).isTrue();
    assertThat(registry.draining("a")).isTrue();
    // An executor that got SIGTERM says so in its heartbeat.
    assertThat(
            registry.heartbeat(
                dev.quiver.distributed.proto.HeartbeatRequest.newBuilder()
                    .setExecutorId("b")
                    .setDraining(true)
                    .build()))
        .isTrue();
    assertThat(registry.schedulable()).isEmpty();
    assertThat(registry.whyNoneSchedulable()).contains("'a' is draining", "'b' is draining");
    // A restarted process registers afresh and takes tasks again.
    registry.register(executor("a", 1));
    assertThat(registry.schedulable()).extracting(ExecutorInfo::getExecutorId).containsExactly("a");
  }

  @Test
  void heartbeatsKeepAnExecutorAliveAndCarryItsLoad() {
    registry.register(executor("a", 1));
    for (int i = 0; i < 5; i++) {
      advance(Duration.ofSeconds(8));
      assertThat(registry.heartbeat("a", 3, 4096)).isTrue();
      assertThat(registry.expire()).isEmpty();
    }
    ExecutorStatus status = registry.list(false).get(0);
    assertThat(status.getRunningTasks()).isEqualTo(3);
    assertThat(status.getShuffleBytes()).isEqualTo(4096);
    assertThat(status.getLastSeenUnixMillis()).isEqualTo(millis.get());
  }

  @Test
  void silentExecutorIsMarkedLostOnceAndMustRegisterAgain() {
    registry.register(executor("a", 1));
    registry.register(executor("b", 2));
    advance(Duration.ofSeconds(6));
    registry.heartbeat("a", 0, 0);
    advance(Duration.ofSeconds(6));

    assertThat(registry.expire()).extracting(ExecutorInfo::getExecutorId).containsExactly("b");
    assertThat(registry.expire()).isEmpty();
    assertThat(registry.alive()).extracting(ExecutorInfo::getExecutorId).containsExactly("a");
    assertThat(registry.list(true))
        .filteredOn(s -> s.getInfo().getExecutorId().equals("b"))
        .singleElement()
        .extracting(ExecutorStatus::getState)
        .isEqualTo(ExecutorState.EXECUTOR_STATE_LOST);

    assertThat(registry.heartbeat("b", 0, 0)).isFalse();
    assertThat(registry.register(executor("b", 3))).isTrue();
    assertThat(registry.heartbeat("b", 0, 0)).isTrue();
    assertThat(registry.alive())
        .extracting(ExecutorInfo::getExecutorId, ExecutorInfo::getFlightPort)
        .containsExactly(tuple("a", 1), tuple("b", 3));
  }

  @Test
  void heartbeatFromUnknownExecutorAsksToRegister() {
    assertThat(registry.heartbeat("ghost", 0, 0)).isFalse();
    assertThat(registry.list(true)).isEmpty();
  }

  @Test
  void reRegisteringAnAliveExecutorReplacesItsInfo() {
    assertThat(registry.register(executor("a", 1))).isTrue();
    assertThat(registry.register(executor("a", 9))).isFalse();
    assertThat(registry.alive())
        .singleElement()
        .extracting(ExecutorInfo::getFlightPort)
        .isEqualTo(9);
  }
}
