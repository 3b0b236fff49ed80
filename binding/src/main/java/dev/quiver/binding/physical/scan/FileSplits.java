package dev.quiver.binding.physical.scan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.ToLongFunction;

/**
 * Deals files (or parts of files) to partitions so that every partition gets about the same number
 * of bytes.
 */
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
    return balance(files, SizedFile::bytes, targetPartitions).stream()
        .map(p -> p.stream().map(SizedFile::path).toList())
        .toList();
  }

  /**
   * Assigns {@code units} to at most {@code targetPartitions} partitions (never an empty one unless
   * there are no units: then one empty partition), largest unit first onto the lightest partition;
   * each partition lists its units in input order.
   */
  public static <T> List<List<T>> balance(
      List<T> units, ToLongFunction<T> bytes, int targetPartitions) {
    int n = Math.max(1, Math.min(targetPartitions, units.size()));
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
    long[] size = new long[units.size()];
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < units.size(); i++) {
      size[i] = bytes.applyAsLong(units.get(i));
      order.add(i);
    }
    order.sort(Comparator.<Integer>comparingLong(i -> -size[i]).thenComparingInt(i -> i));
    for (int u : order) {
      int p = lightest.poll();
      picked.get(p).add(u);
      load[p] += Math.max(1, size[u]);
      lightest.add(p);
    }
    List<List<T>> out = new ArrayList<>(n);
    for (List<Integer> p : picked) {
      p.sort(Integer::compare);
      out.add(p.stream().map(units::get).toList());
    }
    return List.copyOf(out);
  }

  /**
   * Cuts {@code units}, in order, into at most {@code targetPartitions} contiguous runs of about
   * the same number of bytes (a unit goes to the run its middle byte falls in), so that each
   * partition reads neighbouring row groups; empty runs are dropped, leaving at least one.
   */
  public static <T> List<List<T>> contiguous(
      List<T> units, ToLongFunction<T> bytes, int targetPartitions) {
    int n = Math.max(1, targetPartitions);
    long total = 0;
    long[] size = new long[units.size()];
    for (int i = 0; i < units.size(); i++) {
      size[i] = Math.max(1, bytes.applyAsLong(units.get(i)));
      total += size[i];
    }
    List<List<T>> runs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      runs.add(new ArrayList<>());
    }
    long before = 0;
    for (int i = 0; i < units.size(); i++) {
      double middle = before + size[i] / 2.0;
      int run = (int) Math.min(n - 1, Math.floor(middle * n / total));
      runs.get(run).add(units.get(i));
      before += size[i];
    }
    List<List<T>> out = new ArrayList<>();
    for (List<T> run : runs) {
      if (!run.isEmpty()) {
        out.add(List.copyOf(run));
      }
    }
    if (out.isEmpty()) {
      out.add(List.of());
    }
    return List.copyOf(out);
  }
}
