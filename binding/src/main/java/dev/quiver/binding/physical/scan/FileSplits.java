package dev.quiver.binding.physical.scan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/** Deals files to partitions so that every partition gets about the same number of bytes. */
public final class FileSplits {
  private FileSplits() {}

  /** A file and its size in bytes. */
  public record SizedFile(String path, long bytes) {}

  /**
   * Assigns {@code files} to at most {@code targetPartitions} partitions (never an empty one unless
   * there are no files: then one empty partition), largest file first onto the lightest partition;
   * each partition lists its files in input order.
   */
  public static List<List<String>> balance(List<SizedFile> files, int targetPartitions) {
    int n = Math.max(1, Math.min(targetPartitions, files.size()));
    long[] load = new long[n];
    List<List<Integer>> picked = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      picked.add(new ArrayList<>());
    }
    PriorityQueue<Integer> lightest =
        new PriorityQueue<>(
            Comparator.<Integer>comparingLong(p -> load[p]).thenComparingInt(p -> p));
    for (int i = 0; i < n; i++) {
      lightest.add(i);
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      order.add(i);
    }
    order.sort(
        Comparator.<Integer>comparingLong(i -> -files.get(i).bytes()).thenComparingInt(i -> i));
    for (int f : order) {
      int p = lightest.poll();
      picked.get(p).add(f);
      load[p] += Math.max(1, files.get(f).bytes());
      lightest.add(p);
    }
    List<List<String>> out = new ArrayList<>(n);
    for (List<Integer> p : picked) {
      p.sort(Integer::compare);
      out.add(p.stream().map(i -> files.get(i).path()).toList());
    }
    return List.copyOf(out);
  }
}
