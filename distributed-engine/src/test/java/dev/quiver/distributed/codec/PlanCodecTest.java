package dev.quiver.distributed.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.UnknownFieldSet;
import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.aggregate.AggregateFunction;
import dev.quiver.binding.physical.aggregate.AggregateMode;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.expr.ArithmeticExpr;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.ComparisonExpr;
import dev.quiver.binding.physical.expr.DateArithmeticExpr;
import dev.quiver.binding.physical.expr.DateTruncExpr;
import dev.quiver.binding.physical.expr.ExtractExpr;
import dev.quiver.binding.physical.expr.IsTruthExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.LogicalExpr;
import dev.quiver.binding.physical.expr.MathExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.StringFunctionExpr;
import dev.quiver.binding.physical.join.BloomFilter;
import dev.quiver.binding.physical.join.BloomFilterExec;
import dev.quiver.binding.physical.join.PartitionMode;
import dev.quiver.binding.physical.kernel.Hashing;
import dev.quiver.binding.physical.operator.FilterExec;
import dev.quiver.binding.physical.operator.LocalLimitExec;
import dev.quiver.binding.physical.window.WindowFrame;
import dev.quiver.binding.physical.window.WindowFunction;
import dev.quiver.binding.planner.PlanFormatter;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.AggregateFunctionSpec;
import dev.quiver.distributed.proto.AggregateModeSpec;
import dev.quiver.distributed.proto.ArithmeticOpSpec;
import dev.quiver.distributed.proto.ComparisonOpSpec;
import dev.quiver.distributed.proto.DateArithmeticOpSpec;
import dev.quiver.distributed.proto.DateTruncUnitSpec;
import dev.quiver.distributed.proto.ExtractFieldSpec;
import dev.quiver.distributed.proto.FilterExecNode;
import dev.quiver.distributed.proto.JoinPartitionModeSpec;
import dev.quiver.distributed.proto.JoinTypeSpec;
import dev.quiver.distributed.proto.LogicalOpSpec;
import dev.quiver.distributed.proto.MathFunctionSpec;
import dev.quiver.distributed.proto.PartitioningKindSpec;
import dev.quiver.distributed.proto.PhysicalExprNode;
import dev.quiver.distributed.proto.PhysicalPlanNode;
import dev.quiver.distributed.proto.ShuffleReaderModeSpec;
import dev.quiver.distributed.proto.StagePlanNode;
import dev.quiver.distributed.proto.StringFunctionSpec;
import dev.quiver.distributed.proto.TruthTestSpec;
import dev.quiver.distributed.proto.WindowBoundKindSpec;
import dev.quiver.distributed.proto.WindowFunctionSpec;
import dev.quiver.distributed.shuffle.ShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Shuffle readers, plug-in nodes, enum mappings and every decode and encode error. */
@Timeout(60)
class PlanCodecTest {
  private static final ArrowType BIGINT = new ArrowType.Int(64, true);
  private static final Schema SCHEMA =
      new Schema(
          List.of(Field.nullable("id", BIGINT), Field.nullable("name", ArrowType.Utf8.INSTANCE)));

  @TempDir Path dir;
  private RoundTripSession rt;
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    rt = new RoundTripSession(new SessionConfig().withTargetPartitions(2).withBatchSize(3));
    rt.session.sql("create table t (id bigint, name varchar)");
    rt.session.sql("insert into t values (1, 'a'), (2, 'b'), (3, null), (4, 'd'), (5, 'e')");
    rt.session.registerUdf(new Add2Udf());
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
    rt.close();
  }

  private DecodeContext context(List<ShuffleLocation> inputs, ShuffleClient client) {
    return new DecodeContext(allocator, inputs, client, name -> Optional.empty());
  }

  @Test
  void shuffleReadersTravelWithoutLocationsAndGetTheTasksInputs() {
    ColumnExpr id = new ColumnExpr(0, "id", BIGINT, true);
    ShuffleReaderExec hash =
        ShuffleReaderExec.unresolved(
            3, SCHEMA, Partitioning.hash(List.of(id), 2), ShuffleReaderExec.Mode.HASH, 2);
    ShuffleReaderExec perTask =
        ShuffleReaderExec.unresolved(
            4, SCHEMA, Partitioning.unknown(3), ShuffleReaderExec.Mode.PER_TASK, 3);
    ShuffleClient client = (location, schema, context) -> null;
    List<ShuffleLocation> inputs =
        List.of(
            new ShuffleLocation("job", 3, 0, 0, "e1", "127.0.0.1", 1001),
            new ShuffleLocation("job", 3, 1, 1, "e2", "127.0.0.1", 1002),
            new ShuffleLocation("job", 4, 2, 0, "e2", "127.0.0.1", 1002));
    PlanCodec codec = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
    for (ShuffleReaderExec reader : List.of(hash, perTask)) {
      byte[] bytes =
          codec.encodeStage(
              new StagePlan(
                  new RepartitionExec(reader, Partitioning.hash(List.of(id), 5)),
                  Partitioning.roundRobin(7)));
      try (DecodedStage stage = codec.decode(bytes, context(inputs, client))) {
        assertThat(stage.plan().output()).isEqualTo(Partitioning.roundRobin(7));
        ShuffleReaderExec back = (ShuffleReaderExec) stage.plan().root().children().get(0);
        assertThat(back.stageId()).isEqualTo(reader.stageId());
        assertThat(back.mode()).isEqualTo(reader.mode());
        assertThat(back.producerTasks()).isEqualTo(reader.producerTasks());
        assertThat(back.schema()).isEqualTo(SCHEMA);
        assertThat(back.outputPartitioning()).isEqualTo(reader.outputPartitioning());
        assertThat(back.locations())
            .containsExactlyElementsOf(
                inputs.stream().filter(l -> l.stageId() == reader.stageId()).toList());
        assertThat(back.displayDetails()).isEqualTo(reader.displayDetails());
        assertThat(stage.plan().root().outputPartitioning())
            .isEqualTo(Partitioning.hash(List.of(id), 5));
      }
    }
  }

  @Test
  void aFiltersProjectionTravelsAndABadOneIsRefused() {
    ExecutionPlan scan = rt.physicalPlan("select id, name from t");
    ColumnExpr id = new ColumnExpr(0, "id", BIGINT, true);
    PhysicalExpr above2 = new ComparisonExpr(ComparisonExpr.Op.GT, id, new LiteralExpr(2L, BIGINT));
    FilterExec filter = new FilterExec(scan, above2, new int[] {1});
    rt.checkPlan(filter);
    assertThat(rt.execute(filter)).containsExactlyInAnyOrder("null", "d", "e");

    byte[] bytes = rt.codec.encodeStage(new StagePlan(filter, Partitioning.single()));
    StagePlanNode stage;
    try {
      stage = StagePlanNode.parseFrom(bytes);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
    assertThat(stage.getRoot().getFilter().getProjectionList()).containsExactly(1);
    byte[] outOfRange =
        stage.toBuilder()
            .setRoot(
                stage.getRoot().toBuilder()
                    .setFilter(stage.getRoot().getFilter().toBuilder().setProjection(0, 7)))
            .build()
            .toByteArray();
    BufferAllocator child = rt.session.allocator().newChildAllocator("bad", 0, Long.MAX_VALUE);
    assertThatThrownBy(
            () ->
                rt.codec.decode(
                    outOfRange, new DecodeContext(child, List.of(), null, n -> Optional.empty())))
        .isInstanceOf(PlanCodecException.class)
        .hasMessageContaining("filter projection must list distinct input columns");
    assertThat(child.getAllocatedMemory()).isZero();
    child.close();
  }

  @Test
  void anInnerJoinsProjectionTravels() {
    ExecutionPlan plan =
        rt.physicalPlan("select b.name, a.id from t a join t b on a.id = b.id where a.id > 1");
    assertThat(PlanFormatter.format(plan, false)).contains("projection=[");
    rt.checkPlan(plan);
    assertThat(rt.execute(plan)).containsExactlyInAnyOrder("b|2", "null|3", "d|4", "e|5");
  }

  /**
   * A Bloom filter node travels without its filter, which the task supplies: the decoded plan keeps
   * the rows whose key it holds and drops NULL keys; without one it refuses to run.
   */
  @Test
  void bloomFiltersTravelWithoutTheirBitsAndApplyTheTasksFilter() {
    ExecutionPlan scan = rt.physicalPlan("select id, name from t");
    ColumnExpr name = new ColumnExpr(1, "name", ArrowType.Utf8.INSTANCE, true);
    BloomFilter filter = BloomFilter.withBits(1 << 16);
    try (VarCharVector keys = new VarCharVector("k", allocator)) {
      keys.allocateNew(2);
      keys.setSafe(0, "b".getBytes(StandardCharsets.UTF_8));
      keys.setSafe(1, "e".getBytes(StandardCharsets.UTF_8));
      keys.setValueCount(2);
      int[] hashes = new int[2];
      Hashing.hashRows(List.of(keys), 2, hashes);
      filter.insertAll(hashes, 2);
    }
    PlanCodec codec = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
    byte[] bytes =
        codec.encodeStage(
            new StagePlan(
                new BloomFilterExec(scan, List.of(name), 7, filter), Partitioning.single()));
    DecodeContext withFilter =
        new DecodeContext(
            rt.session.allocator(),
            List.of(),
            null,
            n -> Optional.empty(),
            Map.of(),
            Map.of(),
            Map.of(7, filter));
    try (DecodedStage stage = codec.decode(bytes, withFilter)) {
      BloomFilterExec back = (BloomFilterExec) stage.plan().root();
      assertThat(back.filterId()).isEqualTo(7);
      assertThat(back.filter()).isSameAs(filter);
      assertThat(rt.execute(back)).containsExactlyInAnyOrder("2|b", "5|e");
    }
    try (DecodedStage stage =
        codec.decode(
            bytes,
            new DecodeContext(rt.session.allocator(), List.of(), null, n -> Optional.empty()))) {
      assertThatThrownBy(() -> rt.execute(stage.plan().root()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Bloom filter 7 was not supplied");
    }
  }

  @Test
  void roundRobinRepartitionRoundTrips() {
    ExecutionPlan scan = rt.physicalPlan("select id, name from t");
    rt.checkPlan(new RepartitionExec(scan, Partitioning.roundRobin(3)));
  }

  /** The per-partition limit the stage planner puts below a gather keeps its partitioning. */
  @Test
  void localLimitsRoundTripAndKeepAtMostFetchRowsOfEachPartition() {
    ExecutionPlan scan =
        new RepartitionExec(rt.physicalPlan("select id, name from t"), Partitioning.roundRobin(3));
    LocalLimitExec limit = new LocalLimitExec(scan, 2);
    rt.checkPlan(limit);
    assertThat(limit.partitionCount()).isEqualTo(3);
    // Round robin deals whole batches of 3 rows: the partitions hold ids 1-3, 4-5 and nothing.
    assertThat(rt.execute(limit)).containsExactlyInAnyOrder("1|a", "2|b", "4|d", "5|e");
    assertThat(rt.execute(new LocalLimitExec(scan, 1))).containsExactlyInAnyOrder("1|a", "4|d");
    assertThat(rt.execute(new LocalLimitExec(scan, 0))).isEmpty();
    assertThat(rt.execute(new LocalLimitExec(scan, 10))).hasSize(5);
  }

  @Test
  void memoryTablesOverTheLimitAreRefusedWithAdvice() {
    ExecutionPlan plan = rt.physicalPlan("select * from t");
    PlanCodec small = new PlanCodec(64);
    for (Runnable attempt :
        List.<Runnable>of(
            () -> small.encodeStage(new StagePlan(plan, Partitioning.single())),
            () -> small.checkEncodable(plan))) {
      assertThatThrownBy(attempt::run)
          .isInstanceOf(PlanCodecException.class)
          .hasMessageContaining("bytes of in-memory table data")
          .hasMessageContaining("64 bytes")
          .hasMessageContaining(PlanCodec.MAX_SHIPPED_BYTES)
          .hasMessageContaining("Parquet");
    }
    // The default limit ships it; the decoded batches live in the context's allocator.
    PlanCodec codec = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
    byte[] bytes = codec.encodeStage(new StagePlan(plan, Partitioning.single()));
    BufferAllocator child = rt.session.allocator().newChildAllocator("ship", 0, Long.MAX_VALUE);
    DecodedStage stage =
        codec.decode(bytes, new DecodeContext(child, List.of(), null, n -> Optional.empty()));
    assertThat(child.getAllocatedMemory()).isPositive();
    assertThat(rt.execute(stage.plan().root()))
        .containsExactlyInAnyOrderElementsOf(rt.execute(plan));
    stage.close();
    assertThat(child.getAllocatedMemory()).isZero();
    child.close();
  }

  @Test
  void aMissingUdfIsNamedWithWhatToDo() {
    ExecutionPlan plan = rt.physicalPlan("select add2(id, id) from t");
    byte[] bytes = rt.codec.encodeStage(new StagePlan(plan, Partitioning.single()));
    BufferAllocator child = rt.session.allocator().newChildAllocator("udf", 0, Long.MAX_VALUE);
    assertThatThrownBy(
            () ->
                rt.codec.decode(
                    bytes, new DecodeContext(child, List.of(), null, n -> Optional.empty())))
        .isInstanceOf(PlanCodecException.class)
        .hasMessage(
            "UDF 'add2' is not installed on this executor; put the jar that provides it on the"
                + " executor's --classpath");
    // The memory-table batches decoded before the failure were released.
    assertThat(child.getAllocatedMemory()).isZero();
    child.close();
  }

  @Test
  void nodesAndExpressionsOutsideTheBindingAreNamed() {
    ExecutionPlan scan = rt.physicalPlan("select id, name from t");
    ExecutionPlan opaque = new OpaqueExec(scan, "x");
    PlanCodec codec = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
    assertThatThrownBy(() -> codec.checkEncodable(opaque))
        .isInstanceOf(PlanCodecException.class)
        .hasMessageContaining(OpaqueExec.class.getName())
        .hasMessageContaining("no NodeCodec");
    assertThatThrownBy(() -> codec.encodeStage(new StagePlan(opaque, Partitioning.single())))
        .isInstanceOf(PlanCodecException.class)
        .hasMessageContaining(OpaqueExec.class.getName());

    PhysicalExpr custom = new CustomExpr();
    assertThatThrownBy(() -> codec.checkEncodable(new FilterExec(scan, custom)))
        .isInstanceOf(PlanCodecException.class)
        .hasMessageContaining("Cannot encode expression " + CustomExpr.class.getName())
        .hasMessageContaining("in FilterExec");
    codec.checkEncodable(scan);
  }

  @Test
  void nodeCodecPluginsShipCustomNodesAndUnknownOnesAreNamed() throws Exception {
    Path services = dir.resolve("META-INF/services");
    Files.createDirectories(services);
    Files.writeString(
        services.resolve(NodeCodec.class.getName()), OpaqueNodeCodec.class.getName() + "\n");
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
      PlanCodec withPlugin = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES, loader);
      assertThat(withPlugin.nodeCodecNames()).containsExactly("opaque");
      ExecutionPlan plan = new OpaqueExec(rt.physicalPlan("select id, name from t"), "tagged");
      withPlugin.checkEncodable(plan);
      byte[] bytes = withPlugin.encodeStage(new StagePlan(plan, Partitioning.single()));
      BufferAllocator child = rt.session.allocator().newChildAllocator("ext", 0, Long.MAX_VALUE);
      DecodeContext ctx = new DecodeContext(child, List.of(), null, n -> Optional.empty());
      try (DecodedStage stage = withPlugin.decode(bytes, ctx)) {
        OpaqueExec back = (OpaqueExec) stage.plan().root();
        assertThat(back.label()).isEqualTo("tagged");
        assertThat(rt.execute(back)).containsExactlyInAnyOrderElementsOf(rt.execute(plan));
      }
      PlanCodec without = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
      assertThatThrownBy(() -> without.decode(bytes, ctx))
          .isInstanceOf(PlanCodecException.class)
          .hasMessageContaining("NodeCodec 'opaque'")
          .hasMessageContaining("not installed on this executor");
      assertThat(child.getAllocatedMemory()).isZero();
      child.close();
    }
  }

  @Test
  void garbageBytesAreAPlanCodecException() {
    PlanCodec codec = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
    byte[] valid =
        rt.codec.encodeStage(
            new StagePlan(
                rt.physicalPlan("select id + 1, upper(name) from t where id > 2"),
                Partitioning.single()));
    Random random = new Random(42);
    List<byte[]> garbage = new java.util.ArrayList<>();
    garbage.add(new byte[0]);
    garbage.add(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff});
    garbage.add("hello, executor".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    garbage.add(Arrays.copyOf(valid, valid.length / 2));
    for (int i = 0; i < 200; i++) {
      byte[] b = new byte[1 + random.nextInt(300)];
      random.nextBytes(b);
      garbage.add(b);
      byte[] flipped = valid.clone();
      for (int k = 0; k < 1 + random.nextInt(4); k++) {
        flipped[random.nextInt(flipped.length)] = (byte) random.nextInt(256);
      }
      garbage.add(flipped);
    }
    for (byte[] b : garbage) {
      try {
        codec.decode(b, context(List.of(), null)).close();
      } catch (PlanCodecException expected) {
        // The only acceptable failure.
      }
    }
    assertThatThrownBy(() -> codec.decode(new byte[0], context(List.of(), null)))
        .isInstanceOf(PlanCodecException.class);
    assertThatThrownBy(() -> codec.decode(new byte[] {(byte) 0xff}, context(List.of(), null)))
        .isInstanceOf(PlanCodecException.class)
        .hasMessageContaining("not a Quiver stage plan");
  }

  @Test
  void unknownNodeAndExpressionKindsSayANewerClientMayHaveSentThem() {
    PlanCodec codec = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
    UnknownFieldSet future =
        UnknownFieldSet.newBuilder()
            .addField(
                99,
                UnknownFieldSet.Field.newBuilder()
                    .addLengthDelimited(ByteString.copyFromUtf8("?"))
                    .build())
            .build();
    byte[] unknownNode =
        StagePlanNode.newBuilder()
            .setRoot(PhysicalPlanNode.newBuilder().setUnknownFields(future))
            .build()
            .toByteArray();
    assertThatThrownBy(() -> codec.decode(unknownNode, context(List.of(), null)))
        .isInstanceOf(PlanCodecException.class)
        .hasMessageContaining("unknown plan node (field [99])")
        .hasMessageContaining("(a newer client?)");

    byte[] valid =
        rt.codec.encodeStage(
            new StagePlan(rt.physicalPlan("select id from t where id > 2"), Partitioning.single()));
    StagePlanNode withFilter = parse(valid);
    PhysicalPlanNode root = withFilter.getRoot();
    assertThat(findFilter(root)).isNotNull();
    PhysicalPlanNode changed = replaceFilterPredicate(root, future);
    byte[] unknownExpr = withFilter.toBuilder().setRoot(changed).build().toByteArray();
    BufferAllocator child = rt.session.allocator().newChildAllocator("future", 0, Long.MAX_VALUE);
    assertThatThrownBy(
            () ->
                codec.decode(
                    unknownExpr, new DecodeContext(child, List.of(), null, n -> Optional.empty())))
        .isInstanceOf(PlanCodecException.class)
        .hasMessageContaining("unknown physical expression (field [99])")
        .hasMessageContaining("(a newer client?)");
    assertThat(child.getAllocatedMemory()).isZero();
    child.close();

    byte[] unknownEnum =
        StagePlanNode.newBuilder()
            .setRoot(
                PhysicalPlanNode.newBuilder()
                    .setFilter(
                        FilterExecNode.newBuilder()
                            .setInput(withFilter.getRoot())
                            .setPredicate(
                                PhysicalExprNode.newBuilder()
                                    .setLogical(
                                        dev.quiver.distributed.proto.LogicalExprNode.newBuilder()
                                            .setOpValue(77)))))
            .build()
            .toByteArray();
    BufferAllocator child2 = rt.session.allocator().newChildAllocator("enum", 0, Long.MAX_VALUE);
    assertThatThrownBy(
            () ->
                codec.decode(
                    unknownEnum, new DecodeContext(child2, List.of(), null, n -> Optional.empty())))
        .isInstanceOf(PlanCodecException.class)
        .hasMessageContaining("unknown Op value 77")
        .hasMessageContaining("(a newer client?)");
    assertThat(child2.getAllocatedMemory()).isZero();
    child2.close();
  }

  private static StagePlanNode parse(byte[] bytes) {
    try {
      return StagePlanNode.parseFrom(bytes);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  private static PhysicalPlanNode findFilter(PhysicalPlanNode n) {
    if (n.hasFilter()) {
      return n;
    }
    if (n.hasProjection()) {
      return findFilter(n.getProjection().getInput());
    }
    if (n.hasCoalescePartitions()) {
      return findFilter(n.getCoalescePartitions().getInput());
    }
    return null;
  }

  private static PhysicalPlanNode replaceFilterPredicate(PhysicalPlanNode n, UnknownFieldSet f) {
    if (n.hasFilter()) {
      return n.toBuilder()
          .setFilter(
              n.getFilter().toBuilder()
                  .setPredicate(PhysicalExprNode.newBuilder().setUnknownFields(f)))
          .build();
    }
    if (n.hasProjection()) {
      return n.toBuilder()
          .setProjection(
              n.getProjection().toBuilder()
                  .setInput(replaceFilterPredicate(n.getProjection().getInput(), f)))
          .build();
    }
    return n.toBuilder()
        .setCoalescePartitions(
            n.getCoalescePartitions().toBuilder()
                .setInput(replaceFilterPredicate(n.getCoalescePartitions().getInput(), f)))
        .build();
  }

  @Test
  void everyJavaEnumConstantHasAProtoValueAndBack() {
    Map<Class<? extends Enum<?>>, EnumDescriptor> pairs =
        Map.ofEntries(
            Map.entry(Partitioning.Kind.class, PartitioningKindSpec.getDescriptor()),
            Map.entry(AggregateMode.class, AggregateModeSpec.getDescriptor()),
            Map.entry(AggregateFunction.class, AggregateFunctionSpec.getDescriptor()),
            Map.entry(JoinType.class, JoinTypeSpec.getDescriptor()),
            Map.entry(PartitionMode.class, JoinPartitionModeSpec.getDescriptor()),
            Map.entry(WindowFunction.class, WindowFunctionSpec.getDescriptor()),
            Map.entry(WindowFrame.BoundKind.class, WindowBoundKindSpec.getDescriptor()),
            Map.entry(ShuffleReaderExec.Mode.class, ShuffleReaderModeSpec.getDescriptor()),
            Map.entry(ArithmeticExpr.Op.class, ArithmeticOpSpec.getDescriptor()),
            Map.entry(ComparisonExpr.Op.class, ComparisonOpSpec.getDescriptor()),
            Map.entry(LogicalExpr.Op.class, LogicalOpSpec.getDescriptor()),
            Map.entry(IsTruthExpr.Test.class, TruthTestSpec.getDescriptor()),
            Map.entry(MathExpr.Fn.class, MathFunctionSpec.getDescriptor()),
            Map.entry(StringFunctionExpr.Fn.class, StringFunctionSpec.getDescriptor()),
            Map.entry(ExtractExpr.Field.class, ExtractFieldSpec.getDescriptor()),
            Map.entry(DateTruncExpr.Unit.class, DateTruncUnitSpec.getDescriptor()),
            Map.entry(DateArithmeticExpr.Op.class, DateArithmeticOpSpec.getDescriptor()));
    pairs.forEach(PlanCodecTest::checkEnum);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void checkEnum(Class<? extends Enum<?>> type, EnumDescriptor proto) {
    Enum<?>[] constants = type.getEnumConstants();
    for (Enum<?> c : constants) {
      int number = EnumMapping.toNumber(proto, c);
      assertThat((Object) EnumMapping.fromNumber(proto, number, (Class) type)).isEqualTo(c);
    }
    // Every proto value but UNSPECIFIED stands for a constant.
    assertThat(proto.getValues()).hasSize(constants.length + 1);
  }

  /** An expression the codec does not know. */
  private static final class CustomExpr implements PhysicalExpr {
    @Override
    public ArrowType dataType() {
      return ArrowType.Bool.INSTANCE;
    }

    @Override
    public boolean nullable() {
      return false;
    }

    @Override
    public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
      throw new UnsupportedOperationException("never evaluated in this test");
    }

    @Override
    public List<PhysicalExpr> children() {
      return List.of();
    }
  }
}
