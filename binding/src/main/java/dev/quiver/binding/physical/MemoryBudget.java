package dev.quiver.binding.physical;

/**
 * How much memory spilling operators (sort, aggregation, join build) may reserve: a third of the
 * memory a query or task may use. The rest is headroom for what they do not reserve: batches in
 * flight between operators and the transient copy a sort or aggregation makes of its buffer before
 * spilling it. Every spill budget (a local query's, a distributed task's, the join planner's
 * estimate of what fits) is computed here.
 */
public final class MemoryBudget {
  /** Spilling operators may reserve one part in this many of the memory limit. */
  private static final int SPILL_SHARE_DIVISOR = 3;

  private MemoryBudget() {}

  /**
   * The spill budget under a memory limit of {@code memoryLimit} bytes ({@code Long.MAX_VALUE}: no
   * limit, no budget).
   */
  public static long spill(long memoryLimit) {
    return memoryLimit == Long.MAX_VALUE ? Long.MAX_VALUE : memoryLimit / SPILL_SHARE_DIVISOR;
  }

  /**
   * The spill budget of each of {@code cores} tasks running at once on an executor of {@code
   * memoryBytes}, of which {@code shuffleMemoryBytes} hold shuffle output: the tasks share what the
   * shuffle output leaves, and at least a quarter of the memory.
   */
  public static long executorTask(long memoryBytes, long shuffleMemoryBytes, int cores) {
    long forTasks = Math.max(memoryBytes - shuffleMemoryBytes, memoryBytes / 4);
    return Math.max(1, spill(forTasks / cores));
  }

  /**
   * The spill budget of a distributed task: the smaller of its session's (as in a local query, from
   * the session's memory limit) and the task's share of its executor's, {@code executorTask}.
   */
  public static long task(long sessionMemoryLimit, long executorTask) {
    return Math.max(1, Math.min(spill(sessionMemoryLimit), executorTask));
  }
}
