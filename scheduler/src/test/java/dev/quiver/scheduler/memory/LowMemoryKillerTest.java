package dev.quiver.scheduler.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.JobMemory;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LowMemoryKillerTest {
  private static final long COOL_DOWN = 1_000;

  private static HeartbeatRequest beat(String executor, boolean blocked, Object... jobBytes) {
    HeartbeatRequest.Builder b =
        HeartbeatRequest.newBuilder().setExecutorId(executor).setMemoryBlocked(blocked);
    for (int i = 0; i < jobBytes.length; i += 2) {
      b.addJobMemory(
          JobMemory.newBuilder()
              .setJobId((String) jobBytes[i])
              .setBytes(((Number) jobBytes[i + 1]).longValue()));
    }
    return b.build();
  }

  @Test
  void sumsEachJobAcrossExecutorsAndKeepsItsPeak() {
    ClusterMemory memory = new ClusterMemory();
    memory.report(beat("e1", false, "a", 100, "b", 10));
    memory.report(beat("e2", false, "a", 50));
    assertThat(memory.totals()).isEqualTo(Map.of("a", 150L, "b", 10L));
    memory.report(beat("e1", false, "a", 20));
    assertThat(memory.totals()).isEqualTo(Map.of("a", 70L));
    assertThat(memory.peak("a")).isEqualTo(150);
    memory.retainExecutors(Set.of("e1"));
    assertThat(memory.totals())
        .as("a lost executor's memory is held no more")
        .isEqualTo(Map.of("a", 20L));
  }

  @Test
  void nothingIsStoppedWhileNoExecutorIsFullAndNoJobPassesItsLimit() {
    ClusterMemory memory = new ClusterMemory();
    memory.report(beat("e1", false, "a", 900, "b", 100));
    LowMemoryKiller killer = new LowMemoryKiller(COOL_DOWN);
    assertThat(killer.decide(memory, Set.of("a", "b"), Map.of("a", 1000L), 0)).isEmpty();
  }

  @Test
  void aJobOverItsClusterLimitIsStoppedWhateverTheOthersHold() {
    ClusterMemory memory = new ClusterMemory();
    memory.report(beat("e1", false, "small", 60, "big", 500));
    memory.report(beat("e2", false, "small", 60));
    LowMemoryKiller killer = new LowMemoryKiller(COOL_DOWN);
    assertThat(killer.decide(memory, Set.of("small", "big"), Map.of("small", 100L), 0))
        .contains(new LowMemoryKiller.Kill("small", 120, LowMemoryKiller.Reason.QUERY_LIMIT));
  }

  @Test
  void whenAnExecutorIsFullTheJobHoldingTheMostThereIsStoppedOnceUntilItsMemoryIsBack() {
    ClusterMemory memory = new ClusterMemory();
    // b holds the most in all, but none of it on the full executor: stopping it frees nothing.
    memory.report(beat("e1", true, "a", 300, "c", 200));
    memory.report(beat("e2", false, "a", 100, "b", 900));
    LowMemoryKiller killer = new LowMemoryKiller(COOL_DOWN);
    Set<String> running = Set.of("a", "b", "c");
    assertThat(killer.decide(memory, running, Map.of(), 0))
        .contains(new LowMemoryKiller.Kill("a", 400, LowMemoryKiller.Reason.CLUSTER_OUT_OF_MEMORY));
    // Still full and a's memory not reported back yet: nobody else is stopped.
    Set<String> afterKill = Set.of("b", "c");
    assertThat(killer.decide(memory, afterKill, Map.of(), 5_000)).isEmpty();
    // a's memory is back but the cool-down has not passed.
    memory.report(beat("e1", true, "c", 200));
    memory.report(beat("e2", false, "b", 900));
    assertThat(killer.decide(memory, afterKill, Map.of(), COOL_DOWN / 2)).isEmpty();
    // Still full after the cool-down: the next largest there goes.
    assertThat(killer.decide(memory, afterKill, Map.of(), COOL_DOWN))
        .contains(new LowMemoryKiller.Kill("c", 200, LowMemoryKiller.Reason.CLUSTER_OUT_OF_MEMORY));
  }

  @Test
  void onlyRunningJobsAreCandidates() {
    ClusterMemory memory = new ClusterMemory();
    memory.report(beat("e1", true, "ended", 900, "a", 10));
    LowMemoryKiller killer = new LowMemoryKiller(COOL_DOWN);
    Optional<LowMemoryKiller.Kill> kill = killer.decide(memory, Set.of("a"), Map.of(), 0);
    assertThat(kill).map(LowMemoryKiller.Kill::jobId).contains("a");
  }
}
