package dev.quiver.distributed.codec;

import com.google.protobuf.Message;
import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.aggregate.AggregateCall;
import dev.quiver.binding.physical.aggregate.AggregateFunction;
import dev.quiver.binding.physical.aggregate.AggregateMode;
import dev.quiver.binding.physical.aggregate.HashAggregateExec;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.join.BloomFilterExec;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.MarkMergeExec;
import dev.quiver.binding.physical.join.NestedLoopJoinExec;
import dev.quiver.binding.physical.join.PartitionMode;
import dev.quiver.binding.physical.operator.EmptyExec;
import dev.quiver.binding.physical.operator.FilterExec;
import dev.quiver.binding.physical.operator.LimitExec;
import dev.quiver.binding.physical.operator.LocalLimitExec;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.physical.operator.UnionExec;
import dev.quiver.binding.physical.operator.ValuesExec;
import dev.quiver.binding.physical.scan.CsvDialect;
import dev.quiver.binding.physical.scan.CsvScanExec;
import dev.quiver.binding.physical.scan.MemoryScanExec;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.physical.scan.ParquetSplit;
import dev.quiver.binding.physical.sort.SortExec;
import dev.quiver.binding.physical.sort.SortPreservingMergeExec;
import dev.quiver.binding.physical.window.WindowCall;
import dev.quiver.binding.physical.window.WindowExec;
import dev.quiver.binding.physical.window.WindowFrame;
import dev.quiver.binding.physical.window.WindowFunction;
import dev.quiver.distributed.proto.AggregateCallSpec;
import dev.quiver.distributed.proto.AggregateFunctionSpec;
import dev.quiver.distributed.proto.AggregateModeSpec;
import dev.quiver.distributed.proto.BloomFilterExecNode;
import dev.quiver.distributed.proto.CsvScanExecNode;
import dev.quiver.distributed.proto.ExtensionExecNode;
import dev.quiver.distributed.proto.FileGroup;
import dev.quiver.distributed.proto.FilterExecNode;
import dev.quiver.distributed.proto.HashAggregateExecNode;
import dev.quiver.distributed.proto.HashJoinExecNode;
import dev.quiver.distributed.proto.JoinPartitionModeSpec;
import dev.quiver.distributed.proto.JoinTypeSpec;
import dev.quiver.distributed.proto.MemoryScanChunk;
import dev.quiver.distributed.proto.MemoryScanExecNode;
import dev.quiver.distributed.proto.MemoryScanPartition;
import dev.quiver.distributed.proto.NestedLoopJoinExecNode;
import dev.quiver.distributed.proto.ParquetScanExecNode;
import dev.quiver.distributed.proto.PartitioningKindSpec;
import dev.quiver.distributed.proto.PartitioningSpec;
import dev.quiver.distributed.proto.PhysicalPlanNode;
import dev.quiver.distributed.proto.Projection;
import dev.quiver.distributed.proto.ProjectionExecNode;
import dev.quiver.distributed.proto.RowGroupRanges;
import dev.quiver.distributed.proto.ShuffleReaderExecNode;
import dev.quiver.distributed.proto.ShuffleReaderModeSpec;
import dev.quiver.distributed.proto.SortExecNode;
import dev.quiver.distributed.proto.SortFieldSpec;
import dev.quiver.distributed.proto.SortPreservingMergeExecNode;
import dev.quiver.distributed.proto.ValuesExecNode;
import dev.quiver.distributed.proto.ValuesRow;
import dev.quiver.distributed.proto.WindowBoundKindSpec;
import dev.quiver.distributed.proto.WindowCallSpec;
import dev.quiver.distributed.proto.WindowFrameBound;
import dev.quiver.distributed.proto.WindowFunctionSpec;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Decodes one plan. Memory-table batches it allocates are collected in {@link #resources()}; the
 * caller hands them to the decoded stage, or releases them with {@link #release()} on failure.
 */
final class PlanDecoder {
  private final DecodeContext ctx;
  private final Map<String, NodeCodec> codecs;
  private final ExprDecoder exprs;
  private final List<AutoCloseable> resources = new ArrayList<>();

  PlanDecoder(DecodeContext ctx, Map<String, NodeCodec> codecs) {
    this.ctx = ctx;
    this.codecs = codecs;
    this.exprs = new ExprDecoder(ctx.udfs());
  }

  /** What the decoded plan holds: close after the plan has run. */
  List<AutoCloseable> resources() {
    return resources;
  }

  /** Frees what was allocated so far (after a failure). */
  void release() {
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        // The decode already failed; that error is the one to report.
      }
    }
    resources.clear();
  }

  ExecutionPlan node(PhysicalPlanNode n) {
    ExecutionPlan plan = doNode(n);
    if (!n.getTableName().isEmpty() && plan instanceof BaseExecutionPlan base) {
      base.nameTable(n.getTableName());
    }
    return plan;
  }

  private ExecutionPlan doNode(PhysicalPlanNode n) {
    return switch (n.getNodeCase()) {
      case PROJECTION -> {
        ProjectionExecNode p = n.getProjection();
        yield new ProjectionExec(
            node(p.getInput()), exprs.exprs(p.getExprsList()), List.copyOf(p.getNamesList()));
      }
      case FILTER -> {
        FilterExecNode f = n.getFilter();
        int[] projection =
            f.getProjectionCount() == 0
                ? null
                : f.getProjectionList().stream().mapToInt(Integer::intValue).toArray();
        yield new FilterExec(node(f.getInput()), exprs.expr(f.getPredicate()), projection);
      }
      case BLOOM_FILTER -> {
        BloomFilterExecNode b = n.getBloomFilter();
        yield new BloomFilterExec(
            node(b.getInput()),
            exprs.exprs(b.getKeysList()),
            b.getFilterId(),
            ctx.keyFilters().get(b.getFilterId()));
      }
      case LIMIT ->
          new LimitExec(
              node(n.getLimit().getInput()), n.getLimit().getOffset(), n.getLimit().getFetch());
      case LOCAL_LIMIT -> {
        long fetch = n.getLocalLimit().getFetch();
        if (fetch < 0) {
          throw new PlanCodecException("LocalLimitExec has fetch " + fetch + "; it must be >= 0");
        }
        yield new LocalLimitExec(node(n.getLocalLimit().getInput()), fetch);
      }
      case UNION -> new UnionExec(nodes(n.getUnion().getInputsList()));
      case VALUES -> values(n.getValues());
      case EMPTY ->
          new EmptyExec(
              ArrowSerde.schema(n.getEmpty().getSchema(), "EmptyExec"),
              n.getEmpty().getProduceOneRow());
      case COALESCE_PARTITIONS ->
          new CoalescePartitionsExec(node(n.getCoalescePartitions().getInput()));
      case REPARTITION ->
          new RepartitionExec(
              node(n.getRepartition().getInput()),
              partitioning(n.getRepartition().getPartitioning()));
      case HASH_AGGREGATE -> hashAggregate(n.getHashAggregate());
      case HASH_JOIN -> hashJoin(n.getHashJoin());
      case MARK_MERGE ->
          new MarkMergeExec(
              node(n.getMarkMerge().getInput()),
              EnumMapping.fromNumber(
                  JoinTypeSpec.getDescriptor(),
                  n.getMarkMerge().getJoinTypeValue(),
                  JoinType.class));
      case NESTED_LOOP_JOIN -> {
        NestedLoopJoinExecNode j = n.getNestedLoopJoin();
        yield new NestedLoopJoinExec(
            node(j.getLeft()),
            node(j.getRight()),
            EnumMapping.fromNumber(
                JoinTypeSpec.getDescriptor(), j.getJoinTypeValue(), JoinType.class),
            j.hasFilter() ? exprs.expr(j.getFilter()) : null);
      }
      case SORT -> {
        SortExecNode s = n.getSort();
        yield new SortExec(
            node(s.getInput()),
            sortFields(s.getOrderList()),
            s.getFetch(),
            s.getPreservePartitioning());
      }
      case SORT_PRESERVING_MERGE -> {
        SortPreservingMergeExecNode s = n.getSortPreservingMerge();
        yield new SortPreservingMergeExec(
            node(s.getInput()), sortFields(s.getOrderList()), s.getFetch());
      }
      case WINDOW -> {
        ExecutionPlan input = node(n.getWindow().getInput());
        List<WindowCall> calls = new ArrayList<>();
        for (WindowCallSpec c : n.getWindow().getCallsList()) {
          calls.add(windowCall(c));
        }
        yield new WindowExec(input, calls);
      }
      case MEMORY_SCAN -> memoryScan(n.getMemoryScan());
      case PARQUET_SCAN -> {
        ParquetScanExecNode s = n.getParquetScan();
        yield ParquetScanExec.ofSplits(
            ArrowSerde.schema(s.getTableSchema(), "ParquetScanExec"),
            parquetSplits(s),
            s.hasProjection() ? projection(s.getProjection()) : null,
            s.hasLimit() ? OptionalLong.of(s.getLimit()) : OptionalLong.empty(),
            s.getBatchSize(),
            s.getFilesBeforePruning(),
            s.getPartitionColumns());
      }
      case CSV_SCAN -> {
        CsvScanExecNode s = n.getCsvScan();
        for (int c : new int[] {s.getDelimiter(), s.getQuote(), s.getEscape()}) {
          if (c > Character.MAX_VALUE || c < 0) {
            throw new PlanCodecException("CSV delimiter, quote or escape " + c + " is not a char");
          }
        }
        CsvDialect dialect;
        try {
          dialect =
              new CsvDialect(
                  (char) s.getDelimiter(),
                  (char) s.getQuote(),
                  (char) s.getEscape(),
                  s.getHasHeader(),
                  s.getNullString(),
                  s.getIgnoreErrors());
        } catch (RuntimeException e) {
          throw new PlanCodecException("Bad CSV layout in plan: " + e.getMessage());
        }
        yield new CsvScanExec(
            ArrowSerde.schema(s.getTableSchema(), "CsvScanExec"),
            fileGroups(s.getPartitionsList()),
            dialect,
            s.hasProjection() ? projection(s.getProjection()) : null,
            s.hasLimit() ? OptionalLong.of(s.getLimit()) : OptionalLong.empty(),
            s.getBatchSize());
      }
      case SHUFFLE_READER -> {
        ShuffleReaderExecNode r = n.getShuffleReader();
        yield ShuffleReaderExec.unresolved(
                r.getStageId(),
                ArrowSerde.schema(r.getSchema(), "ShuffleReaderExec"),
                partitioning(r.getPartitioning()),
                EnumMapping.fromNumber(
                    ShuffleReaderModeSpec.getDescriptor(),
                    r.getModeValue(),
                    ShuffleReaderExec.Mode.class),
                r.getProducerTasks())
            .withInputs(
                ctx.inputs(),
                ctx.shuffleClient(),
                ctx.inputTaskCounts().getOrDefault(r.getStageId(), -1),
                ctx.inputSlices().get(r.getStageId()));
      }
      case EXTENSION -> extension(n.getExtension());
      case NODE_NOT_SET ->
          throw new PlanCodecException(
              "unknown plan node"
                  + unknownFields(n)
                  + ": this executor does not know it (a newer client?)");
    };
  }

  Partitioning partitioning(PartitioningSpec p) {
    return new Partitioning(
        EnumMapping.fromNumber(
            PartitioningKindSpec.getDescriptor(), p.getKindValue(), Partitioning.Kind.class),
        p.getPartitionCount(),
        exprs.exprs(p.getHashExprsList()));
  }

  /** Describes the unknown fields of a message whose oneof is unset, e.g. " (field 42)". */
  static String unknownFields(Message m) {
    var fields = m.getUnknownFields().asMap().keySet();
    return fields.isEmpty() ? " (none set)" : " (field " + fields + ")";
  }

  private List<ExecutionPlan> nodes(List<PhysicalPlanNode> list) {
    List<ExecutionPlan> out = new ArrayList<>(list.size());
    for (PhysicalPlanNode n : list) {
      out.add(node(n));
    }
    return out;
  }

  private ExecutionPlan values(ValuesExecNode v) {
    List<List<Object>> rows = new ArrayList<>(v.getRowsCount());
    for (ValuesRow r : v.getRowsList()) {
      List<Object> row = new ArrayList<>(r.getValuesCount());
      for (var value : r.getValuesList()) {
        row.add(ScalarValues.decode(value));
      }
      rows.add(row);
    }
    return new ValuesExec(ArrowSerde.schema(v.getSchema(), "ValuesExec"), rows);
  }

  private ExecutionPlan hashAggregate(HashAggregateExecNode a) {
    ExecutionPlan input = node(a.getInput());
    List<AggregateCall> calls = new ArrayList<>();
    for (AggregateCallSpec c : a.getAggregatesList()) {
      calls.add(
          new AggregateCall(
              EnumMapping.fromNumber(
                  AggregateFunctionSpec.getDescriptor(),
                  c.getFunctionValue(),
                  AggregateFunction.class),
              exprs.exprs(c.getArgsList()),
              c.getDistinct(),
              c.hasFilter() ? exprs.expr(c.getFilter()) : null,
              c.getName(),
              ArrowSerde.type(c.getReturnType(), "aggregate " + c.getName()),
              List.copyOf(c.getOrderDescendingList())));
    }
    return new HashAggregateExec(
        input,
        EnumMapping.fromNumber(
            AggregateModeSpec.getDescriptor(), a.getModeValue(), AggregateMode.class),
        exprs.exprs(a.getGroupExprsList()),
        List.copyOf(a.getGroupNamesList()),
        calls);
  }

  private ExecutionPlan hashJoin(HashJoinExecNode j) {
    JoinType type =
        EnumMapping.fromNumber(JoinTypeSpec.getDescriptor(), j.getJoinTypeValue(), JoinType.class);
    if (j.getEmitsMarks()) {
      return HashJoinExec.emittingMarks(
          node(j.getLeft()),
          node(j.getRight()),
          exprs.exprs(j.getLeftKeysList()),
          exprs.exprs(j.getRightKeysList()),
          type,
          j.hasResidualFilter() ? exprs.expr(j.getResidualFilter()) : null,
          j.getNullEqualsNull());
    }
    return new HashJoinExec(
        node(j.getLeft()),
        node(j.getRight()),
        exprs.exprs(j.getLeftKeysList()),
        exprs.exprs(j.getRightKeysList()),
        EnumMapping.fromNumber(JoinTypeSpec.getDescriptor(), j.getJoinTypeValue(), JoinType.class),
        j.hasResidualFilter() ? exprs.expr(j.getResidualFilter()) : null,
        EnumMapping.fromNumber(
            JoinPartitionModeSpec.getDescriptor(), j.getModeValue(), PartitionMode.class),
        j.getNullEqualsNull(),
        j.getSemiBuildsLeft(),
        j.getProjectionCount() == 0
            ? null
            : j.getProjectionList().stream().mapToInt(Integer::intValue).toArray());
  }

  private List<SortField> sortFields(List<SortFieldSpec> specs) {
    List<SortField> out = new ArrayList<>(specs.size());
    for (SortFieldSpec s : specs) {
      out.add(new SortField(exprs.expr(s.getExpr()), s.getAscending(), s.getNullsFirst()));
    }
    return out;
  }

  private WindowCall windowCall(WindowCallSpec c) {
    WindowFrame frame = null;
    if (c.hasFrame()) {
      frame =
          new WindowFrame(
              c.getFrame().getRows(), bound(c.getFrame().getStart()), bound(c.getFrame().getEnd()));
    }
    return new WindowCall(
        EnumMapping.fromNumber(
            WindowFunctionSpec.getDescriptor(), c.getFunctionValue(), WindowFunction.class),
        exprs.exprs(c.getArgsList()),
        exprs.exprs(c.getPartitionByList()),
        sortFields(c.getOrderByList()),
        frame,
        c.getName(),
        ArrowSerde.type(c.getReturnType(), "window function " + c.getName()));
  }

  private static WindowFrame.Bound bound(WindowFrameBound b) {
    return new WindowFrame.Bound(
        EnumMapping.fromNumber(
            WindowBoundKindSpec.getDescriptor(), b.getKindValue(), WindowFrame.BoundKind.class),
        b.getOffset());
  }

  private static int[] projection(Projection p) {
    int[] out = new int[p.getIndicesCount()];
    for (int i = 0; i < out.length; i++) {
      out[i] = p.getIndices(i);
    }
    return out;
  }

  private static List<List<String>> fileGroups(List<FileGroup> groups) {
    List<List<String>> out = new ArrayList<>(groups.size());
    for (FileGroup g : groups) {
      out.add(List.copyOf(g.getPathsList()));
    }
    return out;
  }

  /** Each partition's splits: whole files unless row-group ranges came with the paths. */
  private static List<List<ParquetSplit>> parquetSplits(ParquetScanExecNode s) {
    List<FileGroup> groups = s.getPartitionsList();
    if (s.getRowGroupsCount() != 0 && s.getRowGroupsCount() != groups.size()) {
      throw new PlanCodecException(
          "ParquetScanExec has "
              + groups.size()
              + " partitions but row-group ranges for "
              + s.getRowGroupsCount());
    }
    List<List<ParquetSplit>> out = new ArrayList<>(groups.size());
    for (int p = 0; p < groups.size(); p++) {
      List<String> paths = groups.get(p).getPathsList();
      List<ParquetSplit> splits = new ArrayList<>(paths.size());
      RowGroupRanges ranges = s.getRowGroupsCount() == 0 ? null : s.getRowGroups(p);
      if (ranges != null
          && (ranges.getFirstCount() != paths.size() || ranges.getCountCount() != paths.size())) {
        throw new PlanCodecException(
            "ParquetScanExec partition "
                + p
                + " has "
                + paths.size()
                + " paths but "
                + ranges.getFirstCount()
                + " row-group ranges");
      }
      List<Long> sizes = groups.get(p).getSizesList();
      if (!sizes.isEmpty() && sizes.size() != paths.size()) {
        throw new PlanCodecException(
            "ParquetScanExec partition "
                + p
                + " has "
                + paths.size()
                + " paths but "
                + sizes.size()
                + " sizes");
      }
      List<String> versions = groups.get(p).getVersionsList();
      if (!versions.isEmpty() && versions.size() != paths.size()) {
        throw new PlanCodecException(
            "ParquetScanExec partition "
                + p
                + " has "
                + paths.size()
                + " paths but "
                + versions.size()
                + " versions");
      }
      var partitionValues = groups.get(p).getPartitionValuesList();
      if (!partitionValues.isEmpty() && partitionValues.size() != paths.size()) {
        throw new PlanCodecException(
            "ParquetScanExec partition "
                + p
                + " has "
                + paths.size()
                + " paths but "
                + partitionValues.size()
                + " partition value lists");
      }
      for (int i = 0; i < paths.size(); i++) {
        long size = sizes.isEmpty() ? -1 : sizes.get(i);
        List<String> values = new ArrayList<>();
        if (!partitionValues.isEmpty()) {
          values.addAll(partitionValues.get(i).getValuesList());
          for (int n : partitionValues.get(i).getNullsList()) {
            if (n < 0 || n >= values.size()) {
              throw new PlanCodecException("ParquetScanExec: partition NULL position " + n);
            }
            values.set(n, null);
          }
        }
        try {
          splits.add(
              (ranges == null
                      ? ParquetSplit.wholeFile(paths.get(i), size)
                      : new ParquetSplit(
                          paths.get(i), ranges.getFirst(i), ranges.getCount(i), size))
                  .withPartitionValues(values)
                  .withVersion(
                      versions.isEmpty() || versions.get(i).isEmpty() ? null : versions.get(i)));
        } catch (IllegalArgumentException e) {
          throw new PlanCodecException("ParquetScanExec: " + e.getMessage());
        }
      }
      out.add(splits);
    }
    return out;
  }

  private ExecutionPlan memoryScan(MemoryScanExecNode m) {
    Schema tableSchema = ArrowSerde.schema(m.getTableSchema(), "MemoryScanExec");
    List<VectorSchemaRoot> batches = new ArrayList<>(m.getBatchesCount());
    for (var bytes : m.getBatchesList()) {
      batches.add(ArrowSerde.batch(bytes, ctx.allocator(), resources));
    }
    List<List<MemoryScanExec.Chunk>> partitions = new ArrayList<>();
    for (MemoryScanPartition p : m.getPartitionsList()) {
      List<MemoryScanExec.Chunk> chunks = new ArrayList<>();
      for (MemoryScanChunk c : p.getChunksList()) {
        chunks.add(new MemoryScanExec.Chunk(c.getBatch(), c.getOffset(), c.getLength()));
      }
      partitions.add(chunks);
    }
    return new MemoryScanExec(
        tableSchema,
        batches,
        m.hasProjection() ? projection(m.getProjection()) : null,
        m.hasLimit() ? OptionalLong.of(m.getLimit()) : OptionalLong.empty(),
        partitions);
  }

  private ExecutionPlan extension(ExtensionExecNode e) {
    NodeCodec codec = codecs.get(e.getCodec());
    if (codec == null) {
      throw new PlanCodecException(
          "The plan holds a node encoded by NodeCodec '"
              + e.getCodec()
              + "', which is not installed on this executor; put the jar that provides it on the"
              + " executor's --classpath");
    }
    List<ExecutionPlan> children = nodes(e.getChildrenList());
    ExecutionPlan node = codec.decode(e.getPayload().toByteArray(), children, ctx);
    if (node == null) {
      throw new PlanCodecException("NodeCodec '" + e.getCodec() + "' decoded no node");
    }
    return node;
  }
}
