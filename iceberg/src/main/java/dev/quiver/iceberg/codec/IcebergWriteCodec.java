package dev.quiver.iceberg.codec;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.distributed.codec.DecodeContext;
import dev.quiver.distributed.codec.NodeCodec;
import dev.quiver.distributed.codec.PlanCodecException;
import dev.quiver.iceberg.write.IcebergWriteExec;
import dev.quiver.iceberg.write.WriteTarget;
import java.io.IOException;
import java.util.List;

/**
 * Ships {@link IcebergWriteExec} to executors: the table's location, schema, partition spec and
 * properties and the statement's write id, as JSON (never credentials: executors write with the
 * job's store settings). Found by {@link java.util.ServiceLoader} on client and executors.
 */
public final class IcebergWriteCodec implements NodeCodec {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  /** Used by {@link java.util.ServiceLoader}. */
  public IcebergWriteCodec() {}

  @Override
  public String name() {
    return "iceberg-write";
  }

  @Override
  public boolean canEncode(ExecutionPlan node) {
    return node instanceof IcebergWriteExec;
  }

  @Override
  public byte[] encode(ExecutionPlan node) {
    WriteTarget target = ((IcebergWriteExec) node).target();
    try {
      return JSON.writeValueAsBytes(target);
    } catch (IOException e) {
      throw new PlanCodecException("Cannot encode the Iceberg write of " + target.name(), e);
    }
  }

  @Override
  public ExecutionPlan decode(byte[] payload, List<ExecutionPlan> children, DecodeContext ctx) {
    if (children.size() != 1) {
      throw new PlanCodecException("IcebergWriteExec has one input; got " + children.size());
    }
    try {
      return new IcebergWriteExec(children.get(0), JSON.readValue(payload, WriteTarget.class));
    } catch (IOException | RuntimeException e) {
      throw new PlanCodecException(
          "The Iceberg write in the plan cannot be decoded ("
              + e.getMessage()
              + "); check that the client and the executors run the same Quiver version",
          e);
    }
  }
}
