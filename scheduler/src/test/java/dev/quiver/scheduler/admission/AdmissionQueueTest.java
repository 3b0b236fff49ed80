package dev.quiver.scheduler.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.scheduler.admission.ResourceGroups.Group;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;

class AdmissionQueueTest {
  private final Group etl = new Group("etl", 2, 2, 1, 0.5);
  private final Group adhoc = new Group("adhoc", 1, 0, 1, 0.5);
  private final AdmissionQueue queue = new AdmissionQueue();

  @Test
  void admitsUpToMaxRunningThenQueuesInOrderAndRefusesBeyondMaxQueued() {
    assertThat(queue.offer("j1", etl)).isZero();
    assertThat(queue.offer("j2", etl)).isZero();
    assertThat(queue.offer("j3", etl)).isEqualTo(1);
    assertThat(queue.offer("j4", etl)).isEqualTo(2);
    assertThat(queue.admitted("j2")).isTrue();
    assertThat(queue.admitted("j3")).isFalse();
    assertThatThrownBy(() -> queue.offer("j5", etl))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
              assertThat(e.getStatus().getDescription())
                  .contains("resource group 'etl'")
                  .contains("maxQueued 2")
                  .contains("maxRunning 2");
            });
    // The refused job left no trace; the other group is independent.
    assertThat(queue.position("j5")).isZero();
    assertThat(queue.offer("a1", adhoc)).isZero();
    assertThat(queue.waiting("etl")).containsExactly("j3", "j4");
  }

  @Test
  void aRunningJobEndingAdmitsTheNextAndMovesTheOthersUp() {
    queue.offer("j1", etl);
    queue.offer("j2", etl);
    queue.offer("j3", etl);
    queue.offer("j4", etl);
    assertThat(queue.finished("j1")).containsExactly("j3");
    assertThat(queue.admitted("j3")).isTrue();
    assertThat(queue.position("j3")).isZero();
    assertThat(queue.position("j4")).isEqualTo(1);
    // A waiting job that ends (cancelled) admits nobody: the group still runs two.
    assertThat(queue.finished("j4")).isEmpty();
    assertThat(queue.waiting("etl")).isEmpty();
    assertThat(queue.finished("j2")).isEmpty();
    assertThat(queue.offer("j5", etl)).isZero();
    // Unknown and repeated ends are ignored.
    assertThat(queue.finished("j1")).isEmpty();
    assertThat(queue.finished("nope")).isEmpty();
  }

  @Test
  void aNewJobWaitsBehindQueuedOnesEvenWhenRoomFrees() {
    Group one = new Group("one", 1, 5, 1, 1);
    queue.offer("a", one);
    queue.offer("b", one);
    queue.offer("c", one);
    assertThat(queue.finished("a")).containsExactly("b");
    assertThat(queue.offer("d", one)).as("behind c").isEqualTo(2);
    assertThat(queue.finished("b")).containsExactly("c");
    assertThat(queue.position("d")).isEqualTo(1);
  }

  @Test
  void aGroupWithNoQueueRefusesAtOnceWhenFull() {
    queue.offer("a1", adhoc);
    assertThatThrownBy(() -> queue.requireRoom(adhoc))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("maxQueued 0");
  }
}
