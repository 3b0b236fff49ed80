package dev.quiver.distributed.codec;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.udf.ScalarUdf;
import dev.quiver.distributed.proto.PhysicalExprNode;
import dev.quiver.distributed.proto.StagePlanNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Function;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * Encodes stage plans as protobuf ({@code quiver/v1/plan.proto}) and decodes them on executors.
 * Every node and expression of the binding is built in; other nodes need a {@link NodeCodec}
 * plug-in. Memory-table data travels inside the plan, up to a size limit. Thread-safe.
 */
public final class PlanCodec implements StageDecoder {
  /** Setting: the most in-memory table data (bytes, Arrow IPC) one plan may carry. */
  public static final String MAX_SHIPPED_BYTES = "quiver.distributed.max_memory_table_bytes";

  /** Default of {@link #MAX_SHIPPED_BYTES}: 64 MiB. */
  public static final long DEFAULT_MAX_SHIPPED_BYTES = 64L * 1024 * 1024;

  // Protobuf's default of 100 nested messages is too little for deep plans with nested
  // expressions; this bound still keeps hostile bytes from exhausting the stack.
  private static final int RECURSION_LIMIT = 2_000;

  private final long maxShippedBytes;
  private final List<NodeCodec> codecs;
  private final Map<String, NodeCodec> codecsByName;

  /** A codec whose {@link NodeCodec} plug-ins come from this class's class loader. */
  public PlanCodec(long maxShippedBytes) {
    this(maxShippedBytes, PlanCodec.class.getClassLoader());
  }

  /** A codec whose {@link NodeCodec} plug-ins come from {@code extensions}. */
  public PlanCodec(long maxShippedBytes, ClassLoader extensions) {
    if (maxShippedBytes < 0) {
      throw new IllegalArgumentException(
          MAX_SHIPPED_BYTES + " must not be negative: " + maxShippedBytes);
    }
    this.maxShippedBytes = maxShippedBytes;
    List<NodeCodec> found = new ArrayList<>();
    Map<String, NodeCodec> byName = new LinkedHashMap<>();
    try {
      for (NodeCodec c : ServiceLoader.load(NodeCodec.class, extensions)) {
        NodeCodec previous = byName.putIfAbsent(c.name(), c);
        if (previous != null) {
          throw new PlanCodecException(
              "Two NodeCodec plug-ins are named '"
                  + c.name()
                  + "': "
                  + previous.getClass().getName()
                  + " and "
                  + c.getClass().getName()
                  + "; remove one of them from the class path");
        }
        found.add(c);
      }
    } catch (ServiceConfigurationError e) {
      throw new PlanCodecException("Loading NodeCodec plug-ins failed: " + e.getMessage(), e);
    }
    this.codecs = List.copyOf(found);
    this.codecsByName = Collections.unmodifiableMap(byName);
  }

  /** The most memory-table bytes one plan may ship. */
  public long maxShippedBytes() {
    return maxShippedBytes;
  }

  /** Names of the {@link NodeCodec} plug-ins this codec found. */
  public List<String> nodeCodecNames() {
    return List.copyOf(codecsByName.keySet());
  }

  /**
   * Encodes a stage.
   *
   * @throws PlanCodecException naming the first node or expression that cannot be encoded, or when
   *     the plan's memory tables hold more than {@link #maxShippedBytes()}
   */
  public byte[] encodeStage(StagePlan stage) {
    PlanEncoder encoder = new PlanEncoder(codecs, maxShippedBytes, false);
    return StagePlanNode.newBuilder()
        .setRoot(encoder.node(stage.root()))
        .setOutput(encoder.partitioning(stage.output()))
        .build()
        .toByteArray();
  }

  /**
   * Encodes expressions on their own, outside a plan (the keys of a Bloom filter that a stage's
   * tasks build over their output).
   */
  public static List<PhysicalExprNode> encodeExprs(List<PhysicalExpr> exprs) {
    ExprEncoder encoder = new ExprEncoder();
    List<PhysicalExprNode> out = new ArrayList<>(exprs.size());
    for (PhysicalExpr e : exprs) {
      out.add(encoder.expr(e));
    }
    return out;
  }

  /** Decodes what {@link #encodeExprs} wrote, finding UDFs with {@code udfs}. */
  public static List<PhysicalExpr> decodeExprs(
      List<PhysicalExprNode> nodes, Function<String, Optional<ScalarUdf>> udfs) {
    return new ExprDecoder(udfs).exprs(nodes);
  }

  /**
   * Checks that {@code plan} could be encoded, without shipping its data.
   *
   * @throws PlanCodecException naming the first node or expression class that cannot be encoded and
   *     why, or when its memory tables are too large to ship
   */
  public void checkEncodable(ExecutionPlan plan) {
    new PlanEncoder(codecs, maxShippedBytes, true).node(plan);
  }

  @Override
  public DecodedStage decode(byte[] bytes, DecodeContext context) {
    StagePlanNode message;
    try {
      CodedInputStream in = CodedInputStream.newInstance(bytes);
      in.setRecursionLimit(RECURSION_LIMIT);
      message = StagePlanNode.parseFrom(in);
      in.checkLastTagWas(0);
    } catch (InvalidProtocolBufferException e) {
      throw new PlanCodecException(
          "The plan bytes are not a Quiver stage plan ("
              + e.getMessage()
              + "); check that the client and the executors run the same Quiver version",
          e);
    } catch (java.io.IOException e) {
      throw new PlanCodecException("Reading the plan bytes failed: " + e.getMessage(), e);
    }
    if (!message.hasRoot()) {
      throw new PlanCodecException("The plan bytes hold no stage plan (empty or foreign bytes)");
    }
    PlanDecoder decoder = new PlanDecoder(context, codecsByName);
    try {
      ExecutionPlan root = decoder.node(message.getRoot());
      StagePlan stage = new StagePlan(root, decoder.partitioning(message.getOutput()));
      return new DecodedStage(stage, decoder.resources());
    } catch (PlanCodecException e) {
      decoder.release();
      throw e;
    } catch (OutOfMemoryException e) {
      decoder.release();
      throw new ResourcesExhaustedException(
          "Decoding the plan's memory-table data ran out of memory; give the executor more"
              + " memory or register the data as Parquet",
          e);
    } catch (RuntimeException e) {
      decoder.release();
      throw new PlanCodecException(
          "The plan bytes decode to an invalid plan: " + e.getMessage(), e);
    }
  }
}
