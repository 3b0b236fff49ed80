package dev.quiver.binding.physical.scan;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The staging allocator of one JNI scan. Batches imported through the C data interface keep a small
 * struct allocated here until the last of their buffers is released, which may be long after the
 * scan closed (a join or a collected result still holds them). Closing is therefore deferred until
 * the allocator is empty.
 */
final class ImportAllocator implements AllocationListener {
  private final AtomicBoolean closeRequested = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final BufferAllocator allocator;

  /** Creates an unlimited child of {@code parent}'s root. */
  ImportAllocator(BufferAllocator parent, String name) {
    this.allocator = parent.getRoot().newChildAllocator(name, this, 0, Long.MAX_VALUE);
  }

  /** The allocator the JNI scanner imports into. */
  BufferAllocator allocator() {
    return allocator;
  }

  /** Closes now if nothing is outstanding, else as soon as the last buffer is released. */
  void closeWhenEmpty() {
    closeRequested.set(true);
    closeIfEmpty();
  }

  @Override
  public void onRelease(long size) {
    if (closeRequested.get()) {
      closeIfEmpty();
    }
  }

  private void closeIfEmpty() {
    if (allocator.getAllocatedMemory() == 0 && closed.compareAndSet(false, true)) {
      allocator.close();
    }
  }
}
