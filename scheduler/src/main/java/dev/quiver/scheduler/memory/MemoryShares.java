package dev.quiver.scheduler.memory;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which resource groups hold their memory share or more: a group's running jobs together may hold
 * at most {@code memoryShare} of the executors' memory. Over it, the group's new tasks wait (the
 * scheduling pass launches none) rather than a job being stopped: its running tasks always end and
 * give their memory back, so waiting cannot deadlock and no work is lost, while stopping a job is
 * kept for when the cluster itself is out of memory ({@link LowMemoryKiller}), where tasks waiting
 * for memory hold memory too.
 */
public final class MemoryShares {
  private MemoryShares() {}

  /**
   * The groups at or over their share.
   *
   * @param held bytes each group's running jobs hold on all executors
   * @param shares each group's memory share, in (0, 1]
   * @param clusterBytes the memory of the executors alive (0: none, then no group is over)
   */
  public static Set<String> over(
      Map<String, Long> held, Map<String, Double> shares, long clusterBytes) {
    Set<String> over = new TreeSet<>();
    if (clusterBytes <= 0) {
      return over;
    }
    held.forEach(
        (group, bytes) -> {
          Double share = shares.get(group);
          if (share != null && share < 1 && bytes >= share * clusterBytes) {
            over.add(group);
          }
        });
    return over;
  }
}
