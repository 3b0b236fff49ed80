package dev.quiver.binding.physical;

/**
 * Chooses where each scan partition of an execution gets its splits. In one process every partition
 * reads the splits planned for it ({@link #PLANNED}); a distributed engine may instead hand splits
 * out at run time to whichever task asks first (work stealing), so that a slow process does not
 * hold the others back.
 */
@FunctionalInterface
public interface SplitSources {

  /** Every partition reads what the plan assigned it. */
  SplitSources PLANNED = (scan, partition, planned) -> SplitSource.of(planned);

  /**
   * The source of partition {@code partition} of {@code scan}.
   *
   * @param planned the splits the plan assigned the partition, in order
   */
  SplitSource open(ExecutionPlan scan, int partition, int[] planned);
}
