package dev.quiver.binding.physical.sort;

/** Stable merge sort of an {@code int[]} permutation under an {@link IntComparator}. */
public final class IntSorter {
  private static final int INSERTION_THRESHOLD = 24;

  private IntSorter() {}

  /** Sorts {@code values[0..n)} stably by {@code cmp}. */
  public static void sort(int[] values, int n, IntComparator cmp) {
    if (n < 2) {
      return;
    }
    int[] tmp = new int[n];
    System.arraycopy(values, 0, tmp, 0, n);
    // Sorts tmp into values, ping-ponging between the two arrays to avoid copies.
    mergeSort(tmp, values, 0, n, cmp);
  }

  /** Returns the identity permutation of size n sorted by {@code cmp}. */
  public static int[] sortedPermutation(int n, IntComparator cmp) {
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = i;
    }
    sort(perm, n, cmp);
    return perm;
  }

  /** Sorts src[lo..hi) into dst[lo..hi); src and dst hold the same values on entry. */
  private static void mergeSort(int[] src, int[] dst, int lo, int hi, IntComparator cmp) {
    int len = hi - lo;
    if (len <= INSERTION_THRESHOLD) {
      for (int i = lo + 1; i < hi; i++) {
        int v = dst[i];
        int j = i - 1;
        while (j >= lo && cmp.compare(dst[j], v) > 0) {
          dst[j + 1] = dst[j];
          j--;
        }
        dst[j + 1] = v;
      }
      return;
    }
    int mid = (lo + hi) >>> 1;
    mergeSort(dst, src, lo, mid, cmp);
    mergeSort(dst, src, mid, hi, cmp);
    if (cmp.compare(src[mid - 1], src[mid]) <= 0) {
      System.arraycopy(src, lo, dst, lo, len);
      return;
    }
    int i = lo;
    int j = mid;
    for (int k = lo; k < hi; k++) {
      if (j >= hi || (i < mid && cmp.compare(src[i], src[j]) <= 0)) {
        dst[k] = src[i++];
      } else {
        dst[k] = src[j++];
      }
    }
  }
}
