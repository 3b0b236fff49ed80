package dev.quiver.binding.physical;

/**
 * Hands one scan partition the splits it reads, in the order it reads them. Splits are numbered
 * over the whole scan (every partition's, partition by partition), so a source may give a partition
 * splits planned for another: whatever hands them out must give each split to one partition only.
 * Not thread-safe: the partition's stream calls it.
 */
public interface SplitSource extends AutoCloseable {

  /**
   * The next split to read, or -1 once the partition has read all of its splits. May block while
   * splits are fetched; throws when the query is cancelled meanwhile or they cannot be fetched.
   */
  int next();

  /**
   * The split {@link #next} would return, without taking it, when it is already at hand and may be
   * read together with the current one (the planned assignment: adjacent row groups are read as one
   * range); -1 otherwise. A source that hands splits out at run time answers only with a split the
   * partition already holds.
   */
  int peekAtHand();

  /**
   * Takes the split {@link #peekAtHand} just offered, to be read together with the current one: its
   * reading starts with the current one's, so a source that times its splits does not count it as
   * read in no time.
   */
  default int takeAtHand() {
    return next();
  }

  /** Releases the source (e.g. a prefetch still under way); the partition reads no further. */
  @Override
  default void close() {}

  /** The planned assignment: {@code splits}, in order. */
  static SplitSource of(int[] splits) {
    int[] copy = splits.clone();
    return new SplitSource() {
      private int next;

      @Override
      public int next() {
        return next < copy.length ? copy[next++] : -1;
      }

      @Override
      public int peekAtHand() {
        return next < copy.length ? copy[next] : -1;
      }

      @Override
      public String toString() {
        return "planned splits " + java.util.Arrays.toString(copy);
      }
    };
  }
}
