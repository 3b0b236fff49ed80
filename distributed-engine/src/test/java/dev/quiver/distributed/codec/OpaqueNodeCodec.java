package dev.quiver.distributed.codec;

import dev.quiver.binding.physical.ExecutionPlan;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Test plug-in: ships {@link OpaqueExec} by its label. */
public final class OpaqueNodeCodec implements NodeCodec {
  @Override
  public String name() {
    return "opaque";
  }

  @Override
  public boolean canEncode(ExecutionPlan node) {
    return node instanceof OpaqueExec;
  }

  @Override
  public byte[] encode(ExecutionPlan node) {
    return ((OpaqueExec) node).label().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public ExecutionPlan decode(byte[] payload, List<ExecutionPlan> children, DecodeContext ctx) {
    return new OpaqueExec(children.get(0), new String(payload, StandardCharsets.UTF_8));
  }
}
