package dev.quiver.distributed.codec;

import dev.quiver.binding.udf.ScalarUdf;
import dev.quiver.distributed.shuffle.ShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import java.util.List;
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
 */
public record DecodeContext(
    BufferAllocator allocator,
    List<ShuffleLocation> inputs,
    ShuffleClient shuffleClient,
    Function<String, Optional<ScalarUdf>> udfs) {

  /** Validates and freezes the fields. */
  public DecodeContext {
    inputs = List.copyOf(inputs);
  }
}
