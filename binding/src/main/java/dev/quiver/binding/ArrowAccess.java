package dev.quiver.binding;

import dev.quiver.binding.errors.QuiverException;

/**
 * Checks, before the first Arrow allocation, that the JVM lets Arrow reach direct memory. Arrow
 * reads {@code java.nio.Buffer}'s address field by reflection; without {@code --add-opens
 * java.base/java.nio=ALL-UNNAMED} it fails deep inside its allocator ("Failed to initialize
 * MemoryUtil") and every later allocation reports leaks, which hides the cause. This says it first.
 */
final class ArrowAccess {
  /** The JVM option Arrow needs. */
  static final String FLAG = "--add-opens=java.base/java.nio=ALL-UNNAMED";

  private static volatile boolean checked;

  private ArrowAccess() {}

  /** Throws a {@link QuiverException} naming the missing JVM option, once, if it is missing. */
  static void check() {
    if (checked) {
      return;
    }
    if (!java.nio.Buffer.class.getModule().isOpen("java.nio", ArrowAccess.class.getModule())) {
      throw new QuiverException(
          "Arrow cannot reach direct memory: start the JVM with "
              + FLAG
              + " (java -jar quiver.jar and the server jars set it from their manifests; add it to"
              + " java -cp runs, IDE run configurations, Surefire's argLine and exec plugins)");
    }
    checked = true;
  }
}
