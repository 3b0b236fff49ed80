package dev.quiver.binding.physical.sort;

/** Compares two row indices of the same batch; the primitive comparator the sorts run on. */
@FunctionalInterface
public interface IntComparator {
  /** Negative, zero or positive as row {@code a} sorts before, with or after row {@code b}. */
  int compare(int a, int b);
}
