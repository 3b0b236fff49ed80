package dev.quiver.distributed.codec;

import com.google.protobuf.ByteString;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.aggregate.AggregateCall;
import dev.quiver.binding.physical.aggregate.HashAggregateExec;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.join.BloomFilterExec;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.MarkMergeExec;
import dev.quiver.binding.physical.join.NestedLoopJoinExec;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.operator.EmptyExec;
import dev.quiver.binding.physical.operator.FilterExec;
import dev.quiver.binding.physical.operator.LimitExec;
import dev.quiver.binding.physical.operator.LocalLimitExec;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.physical.operator.UnionExec;
import dev.quiver.binding.physical.operator.ValuesExec;
import dev.quiver.binding.physical.scan.CsvScanExec;
import dev.quiver.binding.physical.scan.FileScanExec;
import dev.quiver.binding.physical.scan.MemoryScanExec;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.physical.scan.ParquetSplit;
import dev.quiver.binding.physical.sort.SortExec;
import dev.quiver.binding.physical.sort.SortPreservingMergeExec;
import dev.quiver.binding.physical.window.WindowCall;
import dev.quiver.binding.physical.window.WindowExec;
import dev.quiver.binding.physical.window.WindowFrame;
import dev.quiver.distributed.proto.AggregateCallSpec;
import dev.quiver.distributed.proto.AggregateFunctionSpec;
import dev.quiver.distributed.proto.AggregateModeSpec;
import dev.quiver.distributed.proto.BloomFilterExecNode;
import dev.quiver.distributed.proto.CoalescePartitionsExecNode;
import dev.quiver.distributed.proto.CsvScanExecNode;
import dev.quiver.distributed.proto.EmptyExecNode;
import dev.quiver.distributed.proto.ExtensionExecNode;
import dev.quiver.distributed.proto.FileGroup;
import dev.quiver.distributed.proto.FilterExecNode;
import dev.quiver.distributed.proto.HashAggregateExecNode;
import dev.quiver.distributed.proto.HashJoinExecNode;
import dev.quiver.distributed.proto.JoinPartitionModeSpec;
import dev.quiver.distributed.proto.JoinTypeSpec;
import dev.quiver.distributed.proto.LimitExecNode;
import dev.quiver.distributed.proto.LocalLimitExecNode;
import dev.quiver.distributed.proto.MarkMergeExecNode;
import dev.quiver.distributed.proto.MemoryScanChunk;
import dev.quiver.distributed.proto.MemoryScanExecNode;
import dev.quiver.distributed.proto.MemoryScanPartition;
import dev.quiver.distributed.proto.NestedLoopJoinExecNode;
import dev.quiver.distributed.proto.ParquetScanExecNode;
import dev.quiver.distributed.proto.PartitioningKindSpec;
import dev.quiver.distributed.proto.PartitioningSpec;
import dev.quiver.distributed.proto.PhysicalExprNode;
import dev.quiver.distributed.proto.PhysicalPlanNode;
import dev.quiver.distributed.proto.Projection;
import dev.quiver.distributed.proto.ProjectionExecNode;
import dev.quiver.distributed.proto.RepartitionExecNode;
import dev.quiver.distributed.proto.RowGroupRanges;
import dev.quiver.distributed.proto.ShuffleReaderExecNode;
import dev.quiver.distributed.proto.ShuffleReaderModeSpec;
import dev.quiver.distributed.proto.SortExecNode;
import dev.quiver.distributed.proto.SortFieldSpec;
import dev.quiver.distributed.proto.SortPreservingMergeExecNode;
import dev.quiver.distributed.proto.UnionExecNode;
import dev.quiver.distributed.proto.ValuesExecNode;
import dev.quiver.distributed.proto.ValuesRow;
import dev.quiver.distributed.proto.WindowBoundKindSpec;
import dev.quiver.distributed.proto.WindowCallSpec;
import dev.quiver.distributed.proto.WindowExecNode;
import dev.quiver.distributed.proto.WindowFrameBound;
import dev.quiver.distributed.proto.WindowFrameSpec;
import dev.quiver.distributed.proto.WindowFunctionSpec;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Encodes one plan. In check mode it walks the plan the same way but ships no data and calls no
 * {@link NodeCodec#encode}, so that it only says whether (and why not) the plan is encodable.
 */
final class PlanEncoder {
  private final List<NodeCodec> codecs;
  private final long maxShippedBytes;
  private final boolean checkOnly;
  private final ExprEncoder exprs = new ExprEncoder();
  private long shippedBytes;

  PlanEncoder(List<NodeCodec> codecs, long maxShippedBytes, boolean checkOnly) {
    this.codecs = codecs;
    this.maxShippedBytes = maxShippedBytes;
    this.checkOnly = checkOnly;
  }

  PhysicalPlanNode node(ExecutionPlan plan) {
    String outer = exprs.inNode(plan.name());
    try {
      PhysicalPlanNode n = doNode(plan);
      return plan.tableName().isEmpty() ? n : n.toBuilder().setTableName(plan.tableName()).build();
    } finally {
      exprs.inNode(outer);
    }
  }

  private PhysicalPlanNode doNode(ExecutionPlan plan) {
    PhysicalPlanNode.Builder b = PhysicalPlanNode.newBuilder();
    if (plan instanceof ProjectionExec p) {
      b.setProjection(
          ProjectionExecNode.newBuilder()
              .setInput(node(p.input()))
              .addAllExprs(exprs(p.exprs()))
              .addAllNames(p.names()));
    } else if (plan instanceof FilterExec p) {
      FilterExecNode.Builder f =
          FilterExecNode.newBuilder().setInput(node(p.input())).setPredicate(expr(p.predicate()));
      int[] projection = p.projection();
      if (projection != null) {
        for (int c : projection) {
          f.addProjection(c);
        }
      }
      b.setFilter(f);
    } else if (plan instanceof BloomFilterExec p) {
      b.setBloomFilter(
          BloomFilterExecNode.newBuilder()
              .setInput(node(p.input()))
              .addAllKeys(exprs(p.keys()))
              .setFilterId(p.filterId()));
    } else if (plan instanceof LimitExec p) {
      b.setLimit(
          LimitExecNode.newBuilder()
              .setInput(node(p.input()))
              .setOffset(p.offset())
              .setFetch(p.fetch()));
    } else if (plan instanceof LocalLimitExec p) {
      b.setLocalLimit(
          LocalLimitExecNode.newBuilder().setInput(node(p.input())).setFetch(p.fetch()));
    } else if (plan instanceof UnionExec p) {
      UnionExecNode.Builder u = UnionExecNode.newBuilder();
      for (ExecutionPlan in : p.children()) {
        u.addInputs(node(in));
      }
      b.setUnion(u);
    } else if (plan instanceof ValuesExec p) {
      ValuesExecNode.Builder v =
          ValuesExecNode.newBuilder().setSchema(ArrowSerde.schema(p.schema()));
      for (List<Object> row : p.rows()) {
        ValuesRow.Builder r = ValuesRow.newBuilder();
        for (Object value : row) {
          r.addValues(ScalarValues.encode(value, "a VALUES row"));
        }
        v.addRows(r);
      }
      b.setValues(v);
    } else if (plan instanceof EmptyExec p) {
      b.setEmpty(
          EmptyExecNode.newBuilder()
              .setSchema(ArrowSerde.schema(p.schema()))
              .setProduceOneRow(p.produceOneRow()));
    } else if (plan instanceof CoalescePartitionsExec p) {
      b.setCoalescePartitions(CoalescePartitionsExecNode.newBuilder().setInput(node(p.input())));
    } else if (plan instanceof RepartitionExec p) {
      b.setRepartition(
          RepartitionExecNode.newBuilder()
              .setInput(node(p.input()))
              .setPartitioning(partitioning(p.outputPartitioning())));
    } else if (plan instanceof HashAggregateExec p) {
      b.setHashAggregate(hashAggregate(p));
    } else if (plan instanceof HashJoinExec p) {
      HashJoinExecNode.Builder j =
          HashJoinExecNode.newBuilder()
              .setLeft(node(p.left()))
              .setRight(node(p.right()))
              .addAllLeftKeys(exprs(p.leftKeys()))
              .addAllRightKeys(exprs(p.rightKeys()))
              .setJoinTypeValue(EnumMapping.toNumber(JoinTypeSpec.getDescriptor(), p.joinType()))
              .setModeValue(EnumMapping.toNumber(JoinPartitionModeSpec.getDescriptor(), p.mode()))
              .setNullEqualsNull(p.nullEqualsNull())
              .setSemiBuildsLeft(p.semiBuildsLeft())
              .setEmitsMarks(p.emitsMarks());
      if (p.residualFilter() != null) {
        j.setResidualFilter(expr(p.residualFilter()));
      }
      int[] projection = p.projection();
      if (projection != null) {
        for (int c : projection) {
          j.addProjection(c);
        }
      }
      b.setHashJoin(j);
    } else if (plan instanceof MarkMergeExec p) {
      b.setMarkMerge(
          MarkMergeExecNode.newBuilder()
              .setInput(node(p.input()))
              .setJoinTypeValue(EnumMapping.toNumber(JoinTypeSpec.getDescriptor(), p.joinType())));
    } else if (plan instanceof NestedLoopJoinExec p) {
      NestedLoopJoinExecNode.Builder j =
          NestedLoopJoinExecNode.newBuilder()
              .setLeft(node(p.left()))
              .setRight(node(p.right()))
              .setJoinTypeValue(EnumMapping.toNumber(JoinTypeSpec.getDescriptor(), p.joinType()));
      if (p.filter() != null) {
        j.setFilter(expr(p.filter()));
      }
      b.setNestedLoopJoin(j);
    } else if (plan instanceof SortExec p) {
      b.setSort(
          SortExecNode.newBuilder()
              .setInput(node(p.input()))
              .addAllOrder(sortFields(plan, p.order()))
              .setFetch(p.fetch())
              .setPreservePartitioning(p.preservePartitioning()));
    } else if (plan instanceof SortPreservingMergeExec p) {
      b.setSortPreservingMerge(
          SortPreservingMergeExecNode.newBuilder()
              .setInput(node(p.input()))
              .addAllOrder(sortFields(plan, p.order()))
              .setFetch(p.fetch()));
    } else if (plan instanceof WindowExec p) {
      WindowExecNode.Builder w = WindowExecNode.newBuilder().setInput(node(p.input()));
      for (WindowCall call : p.calls()) {
        w.addCalls(windowCall(plan, call));
      }
      b.setWindow(w);
    } else if (plan instanceof MemoryScanExec p) {
      b.setMemoryScan(memoryScan(p));
    } else if (plan instanceof ParquetScanExec p) {
      ParquetScanExecNode.Builder s =
          ParquetScanExecNode.newBuilder()
              .setTableSchema(ArrowSerde.schema(p.tableSchema()))
              .setBatchSize(p.batchSize())
              .setFilesBeforePruning(p.filesBeforePruning())
              .setPartitionColumns(p.partitionColumns());
      boolean wholeFiles =
          p.partitionSplits().stream().flatMap(List::stream).allMatch(ParquetSplit::isWholeFile);
      for (List<ParquetSplit> splits : p.partitionSplits()) {
        FileGroup.Builder paths = FileGroup.newBuilder();
        RowGroupRanges.Builder ranges = RowGroupRanges.newBuilder();
        boolean sized = splits.stream().anyMatch(sp -> sp.fileSize() >= 0);
        boolean versioned = splits.stream().anyMatch(sp -> sp.version() != null);
        for (ParquetSplit split : splits) {
          paths.addPaths(split.path());
          if (sized) {
            paths.addSizes(split.fileSize());
          }
          if (versioned) {
            paths.addVersions(split.version() == null ? "" : split.version());
          }
          if (p.partitionColumns() > 0) {
            dev.quiver.distributed.proto.PartitionValues.Builder pv =
                dev.quiver.distributed.proto.PartitionValues.newBuilder();
            for (int i = 0; i < split.partitionValues().size(); i++) {
              String v = split.partitionValues().get(i);
              pv.addValues(v == null ? "" : v);
              if (v == null) {
                pv.addNulls(i);
              }
            }
            paths.addPartitionValues(pv);
          }
          ranges.addFirst(split.firstRowGroup()).addCount(split.rowGroupCount());
        }
        s.addPartitions(paths);
        if (!wholeFiles) {
          s.addRowGroups(ranges);
        }
      }
      if (p.projection() != null) {
        s.setProjection(projection(p.projection()));
      }
      p.limit().ifPresent(s::setLimit);
      b.setParquetScan(s);
    } else if (plan instanceof CsvScanExec p) {
      CsvScanExecNode.Builder s =
          CsvScanExecNode.newBuilder()
              .setTableSchema(ArrowSerde.schema(p.tableSchema()))
              .addAllPartitions(fileGroups(p))
              .setBatchSize(p.batchSize())
              .setDelimiter(p.dialect().delimiter())
              .setHasHeader(p.dialect().hasHeader())
              .setQuote(p.dialect().quote())
              .setEscape(p.dialect().escape())
              .setNullString(p.dialect().nullString())
              .setIgnoreErrors(p.dialect().ignoreErrors());
      if (p.projection() != null) {
        s.setProjection(projection(p.projection()));
      }
      p.limit().ifPresent(s::setLimit);
      b.setCsvScan(s);
    } else if (plan instanceof ShuffleReaderExec p) {
      b.setShuffleReader(
          ShuffleReaderExecNode.newBuilder()
              .setStageId(p.stageId())
              .setSchema(ArrowSerde.schema(p.schema()))
              .setPartitioning(partitioning(p.outputPartitioning()))
              .setModeValue(EnumMapping.toNumber(ShuffleReaderModeSpec.getDescriptor(), p.mode()))
              .setProducerTasks(p.producerTasks()));
    } else {
      b.setExtension(extension(plan));
    }
    return b.build();
  }

  PartitioningSpec partitioning(Partitioning p) {
    return PartitioningSpec.newBuilder()
        .setKindValue(EnumMapping.toNumber(PartitioningKindSpec.getDescriptor(), p.kind()))
        .setPartitionCount(p.partitionCount())
        .addAllHashExprs(exprs(p.hashExprs()))
        .build();
  }

  private PhysicalExprNode expr(PhysicalExpr e) {
    return exprs.expr(e);
  }

  private List<PhysicalExprNode> exprs(List<PhysicalExpr> list) {
    List<PhysicalExprNode> out = new ArrayList<>(list.size());
    for (PhysicalExpr e : list) {
      out.add(exprs.expr(e));
    }
    return out;
  }

  private List<SortFieldSpec> sortFields(ExecutionPlan owner, List<SortField> order) {
    List<SortFieldSpec> out = new ArrayList<>(order.size());
    for (SortField f : order) {
      out.add(
          SortFieldSpec.newBuilder()
              .setExpr(expr(f.expr()))
              .setAscending(f.ascending())
              .setNullsFirst(f.nullsFirst())
              .build());
    }
    return out;
  }

  private HashAggregateExecNode hashAggregate(HashAggregateExec p) {
    HashAggregateExecNode.Builder a =
        HashAggregateExecNode.newBuilder()
            .setInput(node(p.input()))
            .setModeValue(EnumMapping.toNumber(AggregateModeSpec.getDescriptor(), p.mode()));
    a.addAllGroupExprs(exprs(p.groupExprs())).addAllGroupNames(p.groupNames());
    for (AggregateCall call : p.aggregates()) {
      AggregateCallSpec.Builder c =
          AggregateCallSpec.newBuilder()
              .setFunctionValue(
                  EnumMapping.toNumber(AggregateFunctionSpec.getDescriptor(), call.function()))
              .addAllArgs(exprs(call.args()))
              .setDistinct(call.distinct())
              .setName(call.name())
              .setReturnType(ArrowSerde.type(call.returnType()))
              .addAllOrderDescending(call.orderDescending());
      if (call.filter() != null) {
        c.setFilter(expr(call.filter()));
      }
      a.addAggregates(c);
    }
    return a.build();
  }

  private WindowCallSpec windowCall(ExecutionPlan owner, WindowCall call) {
    WindowFrame f = call.frame();
    WindowCallSpec.Builder c =
        WindowCallSpec.newBuilder()
            .setFunctionValue(
                EnumMapping.toNumber(WindowFunctionSpec.getDescriptor(), call.function()))
            .addAllArgs(exprs(call.args()))
            .addAllPartitionBy(exprs(call.partitionBy()))
            .addAllOrderBy(sortFields(owner, call.orderBy()))
            .setName(call.name())
            .setReturnType(ArrowSerde.type(call.returnType()));
    if (f != null) {
      c.setFrame(
          WindowFrameSpec.newBuilder()
              .setRows(f.rows())
              .setStart(bound(f.start()))
              .setEnd(bound(f.end())));
    }
    return c.build();
  }

  private static WindowFrameBound bound(WindowFrame.Bound b) {
    return WindowFrameBound.newBuilder()
        .setKindValue(EnumMapping.toNumber(WindowBoundKindSpec.getDescriptor(), b.kind()))
        .setOffset(b.offset())
        .build();
  }

  private static Projection projection(int[] indices) {
    Projection.Builder p = Projection.newBuilder();
    for (int i : indices) {
      p.addIndices(i);
    }
    return p.build();
  }

  private static List<FileGroup> fileGroups(FileScanExec scan) {
    List<FileGroup> out = new ArrayList<>();
    for (List<String> files : scan.partitionFiles()) {
      out.add(FileGroup.newBuilder().addAllPaths(files).build());
    }
    return out;
  }

  /** Ships the batches the scan's partitions read (only those), as IPC streams. */
  private MemoryScanExecNode memoryScan(MemoryScanExec p) {
    MemoryScanExecNode.Builder m =
        MemoryScanExecNode.newBuilder().setTableSchema(ArrowSerde.schema(p.tableSchema()));
    if (p.projection() != null) {
      m.setProjection(projection(p.projection()));
    }
    OptionalLong limit = p.limit();
    limit.ifPresent(m::setLimit);
    Map<Integer, Integer> shipped = new HashMap<>();
    long estimate = 0;
    for (List<MemoryScanExec.Chunk> part : p.partitionChunks()) {
      for (MemoryScanExec.Chunk c : part) {
        if (shipped.putIfAbsent(c.batch(), shipped.size()) == null) {
          estimate += Batches.sizeInBytes(p.batches().get(c.batch()));
        }
      }
    }
    checkShipped(shippedBytes + estimate);
    shipped.clear();
    for (List<MemoryScanExec.Chunk> part : p.partitionChunks()) {
      MemoryScanPartition.Builder mp = MemoryScanPartition.newBuilder();
      for (MemoryScanExec.Chunk c : part) {
        Integer index = shipped.get(c.batch());
        if (index == null) {
          index = shipped.size();
          shipped.put(c.batch(), index);
          if (!checkOnly) {
            m.addBatches(ship(p.batches().get(c.batch())));
          }
        }
        mp.addChunks(
            MemoryScanChunk.newBuilder()
                .setBatch(index)
                .setOffset(c.offset())
                .setLength(c.length()));
      }
      m.addPartitions(mp);
    }
    return m.build();
  }

  private ByteString ship(VectorSchemaRoot batch) {
    byte[] bytes = ArrowSerde.ipc(batch);
    shippedBytes += bytes.length;
    checkShipped(shippedBytes);
    return ByteString.copyFrom(bytes);
  }

  private void checkShipped(long bytes) {
    if (bytes > maxShippedBytes) {
      throw new PlanCodecException(
          "The plan reads "
              + bytes
              + " bytes of in-memory table data, more than the "
              + maxShippedBytes
              + " bytes a plan may ship to executors (setting "
              + PlanCodec.MAX_SHIPPED_BYTES
              + "); register the data as Parquet instead (DataFrame.writeParquet, then"
              + " SessionContext.registerParquet on a path every executor can read) or raise the"
              + " setting");
    }
  }

  private ExtensionExecNode extension(ExecutionPlan plan) {
    NodeCodec codec = null;
    for (NodeCodec c : codecs) {
      if (c.canEncode(plan)) {
        codec = c;
        break;
      }
    }
    if (codec == null) {
      throw new PlanCodecException(
          "Cannot encode plan node "
              + plan.getClass().getName()
              + " ("
              + plan.name()
              + "): it is not one of the binding's nodes and no NodeCodec on the class path can"
              + " encode it; provide a NodeCodec for it (listed in META-INF/services/"
              + NodeCodec.class.getName()
              + ") on the client and on every executor");
    }
    ExtensionExecNode.Builder e = ExtensionExecNode.newBuilder().setCodec(codec.name());
    if (!checkOnly) {
      byte[] payload = codec.encode(plan);
      e.setPayload(ByteString.copyFrom(payload));
    }
    for (ExecutionPlan child : plan.children()) {
      e.addChildren(node(child));
    }
    return e.build();
  }
}
