package dev.quiver.binding.physical;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MemoryBudgetTest {

  @Test
  void spillingOperatorsGetAThirdOfALimitAndNoBudgetWithoutOne() {
    assertThat(MemoryBudget.spill(3_000)).isEqualTo(1_000);
    assertThat(MemoryBudget.spill(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void anExecutorsTasksShareWhatItsShuffleOutputLeavesAndAtLeastAQuarter() {
    // 12 GB, 4 GB of shuffle output, 4 cores: a third of 2 GB each.
    assertThat(MemoryBudget.executorTask(12_000, 4_000, 4)).isEqualTo(666);
    // Shuffle output set above the memory: the tasks still share a quarter of it.
    assertThat(MemoryBudget.executorTask(12_000, 20_000, 1)).isEqualTo(1_000);
    assertThat(MemoryBudget.executorTask(2, 2, 8)).isEqualTo(1);
  }

  @Test
  void aTaskGetsTheSmallerOfItsSessionsAndItsExecutorsBudget() {
    assertThat(MemoryBudget.task(3_000, 5_000)).isEqualTo(1_000);
    assertThat(MemoryBudget.task(3_000, 400)).isEqualTo(400);
    assertThat(MemoryBudget.task(Long.MAX_VALUE, 400)).isEqualTo(400);
  }
}
