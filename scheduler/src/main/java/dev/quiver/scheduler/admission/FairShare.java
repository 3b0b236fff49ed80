package dev.quiver.scheduler.admission;

import java.util.List;

/**
 * Which resource group gets the next free task slot: weighted fair sharing over running tasks.
 * Among the groups with a task ready, the one whose running tasks, with this one, are fewest for
 * its weight ({@code (running + 1) / weight}), so with two groups busy the slots split in the ratio
 * of their weights however much either has queued, and a group that starts a job while the other
 * holds every slot gets the slots that free until it has its share. Ties go to the group whose
 * waiting job was submitted first (first come, first served within equal shares).
 */
public final class FairShare {
  private FairShare() {}

  /**
   * One group's claim on the next slot.
   *
   * @param weight its scheduling weight
   * @param running tasks of its jobs running now (launched in this pass included)
   * @param firstSeq submission order of its first job with a ready task
   */
  public record Demand(double weight, int running, long firstSeq) {}

  /** The index in {@code demands} (each with a task ready) of the group to serve; -1 if empty. */
  public static int next(List<Demand> demands) {
    int best = -1;
    for (int i = 0; i < demands.size(); i++) {
      Demand d = demands.get(i);
      if (best < 0 || before(d, demands.get(best))) {
        best = i;
      }
    }
    return best;
  }

  private static boolean before(Demand a, Demand b) {
    // The share each would have with the slot: (running + 1) / weight, compared without dividing.
    double left = (a.running() + 1) * b.weight();
    double right = (b.running() + 1) * a.weight();
    if (left != right) {
      return left < right;
    }
    return a.firstSeq() < b.firstSeq();
  }
}
