/**
 * Window functions: {@link dev.quiver.binding.physical.window.WindowExec} over input sorted by
 * partition and order keys, with ranking, offset (LAG, LEAD), value and aggregate functions over
 * ROWS and RANGE frames.
 */
package dev.quiver.binding.physical.window;
