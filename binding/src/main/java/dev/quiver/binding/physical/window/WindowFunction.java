package dev.quiver.binding.physical.window;

/** Functions a {@link WindowExec} computes. */
public enum WindowFunction {
  ROW_NUMBER,
  RANK,
  DENSE_RANK,
  PERCENT_RANK,
  CUME_DIST,
  NTILE,
  LAG,
  LEAD,
  FIRST_VALUE,
  LAST_VALUE,
  COUNT,
  SUM,
  AVG,
  MIN,
  MAX
}
