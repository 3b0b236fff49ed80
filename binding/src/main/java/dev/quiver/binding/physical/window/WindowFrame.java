package dev.quiver.binding.physical.window;

/**
 * The rows an aggregate window function sees for the current row.
 *
 * @param rows true for a ROWS frame (offsets count rows), false for RANGE (peers by order key)
 * @param start lower bound
 * @param end upper bound
 */
public record WindowFrame(boolean rows, Bound start, Bound end) {
  /** Kind of a frame bound. */
  public enum BoundKind {
    UNBOUNDED_PRECEDING,
    PRECEDING,
    CURRENT_ROW,
    FOLLOWING,
    UNBOUNDED_FOLLOWING
  }

  /** One end of a frame; {@code offset} is used by PRECEDING and FOLLOWING. */
  public record Bound(BoundKind kind, long offset) {}

  /** SQL's default with ORDER BY: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW. */
  public static WindowFrame defaultWithOrder() {
    return new WindowFrame(
        false, new Bound(BoundKind.UNBOUNDED_PRECEDING, 0), new Bound(BoundKind.CURRENT_ROW, 0));
  }

  /** The whole partition. */
  public static WindowFrame wholePartition() {
    return new WindowFrame(
        true,
        new Bound(BoundKind.UNBOUNDED_PRECEDING, 0),
        new Bound(BoundKind.UNBOUNDED_FOLLOWING, 0));
  }
}
