package dev.quiver.iceberg.codec;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.distributed.codec.DecodeContext;
import dev.quiver.distributed.codec.NodeCodec;
import dev.quiver.distributed.codec.PlanCodecException;
import dev.quiver.iceberg.scan.IcebergScanExec;
import dev.quiver.iceberg.scan.IcebergSplit;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Ships {@link IcebergScanExec} to executors: the splits with their delete files and the column
 * mapping, as JSON (the plan carries locations, never data or credentials; executors reach the
 * files with the job's store settings). Found by {@link java.util.ServiceLoader} on client and
 * executors.
 */
public final class IcebergScanCodec implements NodeCodec {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  /** The node's parameters as they travel. */
  record Payload(
      String table,
      String schema,
      int[] fieldIds,
      List<List<IcebergSplit>> partitions,
      int[] projection,
      Long limit,
      int batchSize) {}

  /** Used by {@link java.util.ServiceLoader}. */
  public IcebergScanCodec() {}

  @Override
  public String name() {
    return "iceberg-scan";
  }

  @Override
  public boolean canEncode(ExecutionPlan node) {
    return node instanceof IcebergScanExec;
  }

  @Override
  public byte[] encode(ExecutionPlan node) {
    IcebergScanExec scan = (IcebergScanExec) node;
    Payload p =
        new Payload(
            scan.table(),
            scan.tableSchema().toJson(),
            scan.fieldIds(),
            scan.partitionSplits(),
            scan.projection(),
            scan.limit().isPresent() ? scan.limit().getAsLong() : null,
            scan.batchSize());
    try {
      return JSON.writeValueAsBytes(p);
    } catch (IOException e) {
      throw new PlanCodecException("Cannot encode the Iceberg scan of " + scan.table(), e);
    }
  }

  @Override
  public ExecutionPlan decode(byte[] payload, List<ExecutionPlan> children, DecodeContext ctx) {
    if (!children.isEmpty()) {
      throw new PlanCodecException("IcebergScanExec has no children; got " + children.size());
    }
    try {
      Payload p = JSON.readValue(payload, Payload.class);
      return new IcebergScanExec(
          p.table(),
          Schema.fromJSON(p.schema()),
          p.fieldIds(),
          p.partitions(),
          p.projection(),
          p.limit() == null ? OptionalLong.empty() : OptionalLong.of(p.limit()),
          p.batchSize());
    } catch (IOException | RuntimeException e) {
      throw new PlanCodecException(
          "The Iceberg scan in the plan cannot be decoded ("
              + e.getMessage()
              + "); check that the client and the executors run the same Quiver version",
          e);
    }
  }
}
