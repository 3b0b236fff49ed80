package dev.quiver.distributed.planner;

import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.scan.FileScanExec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** How many bytes of files a plan reads: sizes tasks and orders runtime filters. */
public final class ScanBytes {
  private ScanBytes() {}

  /**
   * Bytes of the distinct files the plan's file scans read, as listed when they were planned (so
   * objects in a store count too); a file whose size was not listed counts its local size, if it is
   * a local file, else nothing.
   */
  public static long of(ExecutionPlan plan) {
    Map<String, Long> files = new HashMap<>();
    collectFiles(plan, files);
    long total = 0;
    for (Map.Entry<String, Long> f : files.entrySet()) {
      if (f.getValue() >= 0) {
        total += f.getValue();
        continue;
      }
      try {
        total += Files.size(Path.of(f.getKey()));
      } catch (IOException | RuntimeException e) {
        // Not a local file, or missing: a missing file fails the scan itself with a clear error.
      }
    }
    return total;
  }

  private static void collectFiles(ExecutionPlan plan, Map<String, Long> files) {
    if (plan instanceof FileScanExec scan) {
      Map<String, Long> listed = scan.listedFileBytes();
      for (List<String> partition : scan.partitionFiles()) {
        for (String file : partition) {
          files.merge(file, listed.getOrDefault(file, -1L), Math::max);
        }
      }
    }
    for (ExecutionPlan child : plan.children()) {
      collectFiles(child, files);
    }
  }
}
