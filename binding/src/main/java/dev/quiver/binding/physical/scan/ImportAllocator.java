package dev.quiver.binding.physical.scan;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The staging allocator of one JNI scan. Batches imported through the C data interface keep a
 * small struct allocated here until the last of their buffers is released, which may be long
 * after the scan closed (a join or a collected result still holds them). Closing is therefore
 * deferred until the allocator is empty.
 */
final class ImportAllocator {
  private ImportAllocator() {}

  /** Creates an unlimited child of {@code parent}'s root; close it with {@link #closeWhenEmpty}. */
  static BufferAllocator create(BufferAllocator parent, String name) {
    AtomicBoolean closeRequested = new AtomicBoolean();
    BufferAllocator[] self = new BufferAllocator[1];
    AllocationListener listener =
        new AllocationListener() {
          @Override
          public void onRelease(long size) {
            BufferAllocator a = self[0];
            if (closeRequested.get() && a != null && a.getAllocatedMemory() == 0) {
              closeQuietly(a);
            }
          }
        };
    BufferAllocator allocator = parent.getRoot().newChildAllocator(name, listener, 0, Long.MAX_VALUE);
    self[0] = allocator;
    CLOSE_FLAGS.put(allocator, closeRequested);
    return allocator;
  }

  /** Closes now if nothing is outstanding, else as soon as the last buffer is released. */
  static void closeWhenEmpty(BufferAllocator allocator) {
    AtomicBoolean flag = CLOSE_FLAGS.get(allocator);
    if (flag != null) {
      flag.set(true);
    }
    if (allocator.getAllocatedMemory() == 0) {
      closeQuietly(allocator);
    }
  }

  private static void closeQuietly(BufferAllocator allocator) {
    synchronized (allocator) {
      if (CLOSE_FLAGS.remove(allocator) != null) {
        allocator.close();
      }
    }
  }

  private static final java.util.Map<BufferAllocator, AtomicBoolean> CLOSE_FLAGS =
      new java.util.concurrent.ConcurrentHashMap<>();
}
