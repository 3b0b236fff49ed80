package dev.quiver.binding.physical.sort;

import java.util.Arrays;

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

  /** Sorts {@code values[from..to)} stably by {@code cmp}. */
  public static void sort(int[] values, int from, int to, IntComparator cmp) {
    if (to - from < 2) {
      return;
    }
    int[] tmp = Arrays.copyOfRange(values, from, to);
    int[] dst = Arrays.copyOfRange(values, from, to);
    mergeSort(tmp, dst, 0, to - from, cmp);
    System.arraycopy(dst, 0, values, from, to - from);
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

  /** Stably sorts {@code values[0..n)} by the parallel {@code keys[0..n)} (both are permuted). */
  public static void sortByKey(long[] keys, int[] values, int n) {
    if (n < 2) {
      return;
    }
    long[] tk = keys.clone();
    int[] tv = values.clone();
    mergeSortKeyed(tk, tv, keys, values, 0, n);
  }

  private static void mergeSortKeyed(long[] sk, int[] sv, long[] dk, int[] dv, int lo, int hi) {
    int len = hi - lo;
    if (len <= INSERTION_THRESHOLD) {
      for (int i = lo + 1; i < hi; i++) {
        long k = dk[i];
        int v = dv[i];
        int j = i - 1;
        while (j >= lo && dk[j] > k) {
          dk[j + 1] = dk[j];
          dv[j + 1] = dv[j];
          j--;
        }
        dk[j + 1] = k;
        dv[j + 1] = v;
      }
      return;
    }
    int mid = (lo + hi) >>> 1;
    mergeSortKeyed(dk, dv, sk, sv, lo, mid);
    mergeSortKeyed(dk, dv, sk, sv, mid, hi);
    if (sk[mid - 1] <= sk[mid]) {
      System.arraycopy(sk, lo, dk, lo, len);
      System.arraycopy(sv, lo, dv, lo, len);
      return;
    }
    int i = lo;
    int j = mid;
    for (int k = lo; k < hi; k++) {
      if (j >= hi || (i < mid && sk[i] <= sk[j])) {
        dk[k] = sk[i];
        dv[k] = sv[i++];
      } else {
        dk[k] = sk[j];
        dv[k] = sv[j++];
      }
    }
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
