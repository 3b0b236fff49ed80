package dev.quiver.distributed.codec;

import dev.quiver.binding.physical.ExecutionPlan;
import java.util.List;

/**
 * Plug-in that ships plan nodes the binding does not define (e.g. the scan of a user's {@code
 * TableProvider}). Implementations are found with {@link java.util.ServiceLoader} (list them in
 * {@code META-INF/services/dev.quiver.distributed.codec.NodeCodec}) on the client and on every
 * executor; the node's children are encoded by the plan codec itself.
 */
public interface NodeCodec {
  /** Unique name written into the plan; the executor picks the codec to decode with by it. */
  String name();

  /** Whether this codec can encode {@code node}. */
  boolean canEncode(ExecutionPlan node);

  /** The node's own parameters (not its children) as bytes. */
  byte[] encode(ExecutionPlan node);

  /** Rebuilds a node from {@link #encode}'s bytes over already decoded {@code children}. */
  ExecutionPlan decode(byte[] payload, List<ExecutionPlan> children, DecodeContext ctx);
}
