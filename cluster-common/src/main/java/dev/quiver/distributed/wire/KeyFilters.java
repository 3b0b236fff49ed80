package dev.quiver.distributed.wire;

import dev.quiver.binding.physical.join.BloomFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Bloom filters of a runtime filter as they travel: each task of the stage whose keys filter
 * another builds one over its output (LaunchTaskRequest.key_filter_builds) and reports it
 * (TaskMetrics.key_filters); the scheduler merges them into the one the filtered stage's tasks
 * apply (LaunchTaskRequest.key_filter).
 */
public final class KeyFilters {
  private KeyFilters() {}

  /** A merged filter: its bytes, its size in bits and the share of its bits set. */
  public record Merged(byte[] bytes, long bits, double fill) {}

  /**
   * The union of the tasks' filters {@code parts}, each folded to the smallest of their sizes first
   * (tasks size theirs from their own rows); a task that wrote no rows reports no bytes and adds
   * nothing. Empty when a part is not a filter.
   */
  public static Optional<Merged> merge(List<byte[]> parts) {
    List<BloomFilter> filters = new ArrayList<>(parts.size());
    long smallest = Long.MAX_VALUE;
    try {
      for (byte[] part : parts) {
        if (part.length > 0) {
          BloomFilter f = BloomFilter.fromBytes(part);
          filters.add(f);
          smallest = Math.min(smallest, f.bits());
        }
      }
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    BloomFilter merged = BloomFilter.withBits(filters.isEmpty() ? 1 : smallest);
    for (BloomFilter f : filters) {
      merged.or(f.foldedTo(smallest));
    }
    return Optional.of(new Merged(merged.toBytes(), merged.bits(), merged.fill()));
  }
}
