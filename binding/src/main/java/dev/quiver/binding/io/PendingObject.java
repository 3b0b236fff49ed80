package dev.quiver.binding.io;

import java.io.OutputStream;

/**
 * An object being written. Nothing is visible at its location until {@link #commit()}; {@link
 * #abort()} (or a crash) leaves nothing there. Closing the stream uploads what was written but does
 * not publish it, so that a writer can publish several objects only once all are written.
 */
public abstract class PendingObject extends OutputStream {
  /** The location the object will have. */
  public abstract String location();

  /** Makes the object visible at its location; closes the stream first if needed. */
  public abstract void commit();

  /** Discards the object; idempotent, and safe after a failed write. */
  public abstract void abort();
}
