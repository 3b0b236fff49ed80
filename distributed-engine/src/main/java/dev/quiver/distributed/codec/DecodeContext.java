package dev.quiver.distributed.codec;

import dev.quiver.binding.physical.join.BloomFilter;
import dev.quiver.binding.udf.ScalarUdf;
import dev.quiver.distributed.shuffle.ShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What decoding a stage plan on an executor needs from its surroundings.
 *
 * @param allocator where shipped data (memory-table batches) is allocated; the decoded stage
 *     releases it on close
 * @param inputs where the outputs of the stage's input stages live (fills every shuffle reader)
 * @param shuffleClient fetches those outputs
 * @param udfs finds a UDF by name among those installed on this process
 * @param inputTaskCounts how many tasks each input stage ran, by stage id (absent: as planned)
 * @param inputSlices the part of each hash-shuffled input stage the task reads, by stage id
 *     (absent: its own partition of every producer task)
 * @param keyFilters the Bloom filters the plan's {@code BloomFilterExec}s apply, by filter id
 */
public record DecodeContext(
    BufferAllocator allocator,
    List<ShuffleLocation> inputs,
    ShuffleClient shuffleClient,
    Function<String, Optional<ScalarUdf>> udfs,
    Map<Integer, Integer> inputTaskCounts,
    Map<Integer, ShuffleReaderExec.Slice> inputSlices,
    Map<Integer, BloomFilter> keyFilters) {

  /** Validates and freezes the fields. */
  public DecodeContext {
    inputs = List.copyOf(inputs);
    inputTaskCounts = Map.copyOf(inputTaskCounts);
    inputSlices = Map.copyOf(inputSlices);
    keyFilters = Map.copyOf(keyFilters);
  }

  /** A context without Bloom filters. */
  public DecodeContext(
      BufferAllocator allocator,
      List<ShuffleLocation> inputs,
      ShuffleClient shuffleClient,
      Function<String, Optional<ScalarUdf>> udfs,
      Map<Integer, Integer> inputTaskCounts,
      Map<Integer, ShuffleReaderExec.Slice> inputSlices) {
    this(allocator, inputs, shuffleClient, udfs, inputTaskCounts, inputSlices, Map.of());
  }

  /** A context for a task that reads its own partition of inputs that ran as planned. */
  public DecodeContext(
      BufferAllocator allocator,
      List<ShuffleLocation> inputs,
      ShuffleClient shuffleClient,
      Function<String, Optional<ScalarUdf>> udfs) {
    this(allocator, inputs, shuffleClient, udfs, Map.of(), Map.of(), Map.of());
  }
}
