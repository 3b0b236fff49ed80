package dev.quiver.executor.task;

import com.google.protobuf.ByteString;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.join.BloomFilter;
import dev.quiver.binding.physical.kernel.Hashing;
import dev.quiver.binding.udf.ScalarUdf;
import dev.quiver.distributed.codec.PlanCodec;
import dev.quiver.distributed.proto.KeyFilterBits;
import dev.quiver.distributed.proto.KeyFilterBuild;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Builds the Bloom filters a task was asked for (LaunchTaskRequest.key_filter_builds) over the rows
 * it writes, for the runtime filters of other stages. Each filter starts at its planned size and is
 * folded, when the task finishes, to 16-32 bits a key for the rows the whole stage writes if its
 * tasks write as many as this one: the scheduler merges the tasks' filters at the smallest size
 * among them.
 */
final class KeyFilterBuilder {
  private static final int BITS_PER_KEY = 32;

  private record Build(int filterId, List<PhysicalExpr> keys, BloomFilter filter, int tasks) {}

  private final List<Build> builds;
  private int[] hashes = new int[0];
  private long rows;

  KeyFilterBuilder(List<KeyFilterBuild> requested, Function<String, Optional<ScalarUdf>> udfs) {
    builds = new ArrayList<>(requested.size());
    for (KeyFilterBuild b : requested) {
      builds.add(
          new Build(
              b.getFilterId(),
              PlanCodec.decodeExprs(b.getKeysList(), udfs),
              BloomFilter.withBits(b.getBits()),
              Math.max(1, b.getTasks())));
    }
  }

  /** Adds the keys of {@code batch}'s rows to every filter. */
  void add(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    rows += n;
    if (hashes.length < n) {
      hashes = new int[n];
    }
    for (Build b : builds) {
      List<FieldVector> keys = new ArrayList<>(b.keys().size());
      try {
        for (PhysicalExpr e : b.keys()) {
          keys.add(e.evaluate(batch, allocator));
        }
        Hashing.hashRows(keys, n, hashes);
      } finally {
        keys.forEach(FieldVector::close);
      }
      // A NULL key is inserted like any other value: filters only ever let rows through, and
      // the filtered side drops its NULL keys itself.
      b.filter().insertAll(hashes, n);
    }
  }

  /** The filters, folded to the rows written (empty when there were none). */
  List<KeyFilterBits> finish() {
    List<KeyFilterBits> out = new ArrayList<>(builds.size());
    for (Build b : builds) {
      // No rows, no keys: an empty filter, which adds nothing to the others when merged.
      ByteString bits =
          rows == 0
              ? ByteString.EMPTY
              : ByteString.copyFrom(b.filter().foldedTo(rows * b.tasks() * BITS_PER_KEY).toBytes());
      out.add(KeyFilterBits.newBuilder().setFilterId(b.filterId()).setBits(bits).build());
    }
    return out;
  }
}
