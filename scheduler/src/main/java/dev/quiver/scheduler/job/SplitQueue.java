package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ScanSplits;
import dev.quiver.distributed.proto.SplitList;
import dev.quiver.distributed.proto.StageSpec;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The splits of one scan of a stage, handed to the stage's tasks as they ask (work stealing). Pure
 * state, unit-tested without a scheduler; job loop only.
 *
 * <p>Each task has the splits planned for it, not yet handed out, and the list of splits handed to
 * it, which only grows. An attempt asks from a position in its task's list: it gets the list from
 * there, and at the list's end new splits, which are appended: first the task's own planned ones in
 * order (so that with executors of equal speed every task reads what it would have read, in order),
 * then, once those are gone, another task's from the end of the longest planned list (so that the
 * owner keeps reading its own in order), at most half of what that list has left per call (one at
 * least), in a call that got none of its own. A retry, a speculative copy, or a re-run after its
 * output was lost therefore reads exactly the task's list, and a split is in one list only: read
 * once per successful set of tasks. Once every split is handed out the lists no longer change.
 */
final class SplitQueue {

  /** What an attempt gets: {@code splits} from its position, {@code last} when nothing follows. */
  record Answer(List<Integer> splits, boolean last) {}

  private final List<Deque<Integer>> untaken;
  private final List<List<Integer>> given;
  private int remaining;

  /** A queue of the splits {@code planned} for each task (every split exactly once). */
  SplitQueue(List<List<Integer>> planned) {
    untaken = new ArrayList<>(planned.size());
    given = new ArrayList<>(planned.size());
    for (List<Integer> p : planned) {
      untaken.add(new ArrayDeque<>(p));
      given.add(new ArrayList<>());
      remaining += p.size();
    }
  }

  /** The queues of the stage's scans whose splits are handed out at run time, by scan. */
  static Map<Integer, SplitQueue> of(StageSpec spec) {
    Map<Integer, SplitQueue> out = new LinkedHashMap<>();
    for (ScanSplits scan : spec.getScanSplitsList()) {
      List<List<Integer>> planned = new ArrayList<>();
      for (SplitList l : scan.getPlannedList()) {
        planned.add(l.getSplitsList());
      }
      out.put(scan.getScan(), new SplitQueue(planned));
    }
    return out;
  }

  /**
   * Task {@code task}'s splits from position {@code received} of its list, at most {@code want} (at
   * least one when any is left), taking new ones at the list's end.
   *
   * @throws IllegalArgumentException when {@code received} is beyond the task's list
   */
  Answer next(int task, int received, int want) {
    List<Integer> list = given.get(task);
    if (received < 0 || received > list.size()) {
      throw new IllegalArgumentException(
          "task "
              + task
              + " was given "
              + list.size()
              + " splits; an attempt cannot have received "
              + received);
    }
    List<Integer> out = new ArrayList<>();
    int at = received;
    int stealable = -1; // splits this call may still steal, once it steals
    while (out.size() < Math.max(1, want)) {
      if (at < list.size()) {
        out.add(list.get(at++));
        continue;
      }
      if (untaken.get(task).isEmpty()) {
        // A thief takes at most half of its victim's splits left: a task asking for many at once
        // (its own reading is fast) would otherwise empty one that has not started yet, and one
        // split per call would leave it waiting on a call per split.
        if (stealable < 0) {
          if (!out.isEmpty()) {
            break;
          }
          Deque<Integer> victim = longestUntaken();
          stealable = Math.max(1, victim == null ? 0 : victim.size() / 2);
        }
        if (stealable-- == 0) {
          break;
        }
      }
      int split = take(task);
      if (split < 0) {
        break;
      }
      list.add(split);
      out.add(split);
      at++;
    }
    return new Answer(List.copyOf(out), at == list.size() && remaining == 0);
  }

  /**
   * A split new to {@code task}: its own next planned one, else one stolen; -1 when none is left.
   */
  private int take(int task) {
    Deque<Integer> own = untaken.get(task);
    Deque<Integer> from = own.isEmpty() ? longestUntaken() : own;
    if (from == null) {
      return -1;
    }
    remaining--;
    return from == own ? own.pollFirst() : from.pollLast();
  }

  /** The first of the longest lists of splits not handed out yet, null when none is left. */
  private Deque<Integer> longestUntaken() {
    Deque<Integer> longest = null;
    for (Deque<Integer> other : untaken) {
      if (!other.isEmpty() && (longest == null || other.size() > longest.size())) {
        longest = other;
      }
    }
    return longest;
  }

  /** The splits handed to {@code task} so far, in order. */
  List<Integer> given(int task) {
    return List.copyOf(given.get(task));
  }

  /** Splits not handed to any task yet. */
  int remaining() {
    return remaining;
  }
}
