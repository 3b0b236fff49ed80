package dev.quiver.iceberg.table;

import dev.quiver.binding.datasource.ScanRequest;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.datasource.TableStatistics;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.scan.FileSplits;
import dev.quiver.iceberg.scan.DeleteRef;
import dev.quiver.iceberg.scan.IcebergScanExec;
import dev.quiver.iceberg.scan.IcebergSplit;
import dev.quiver.iceberg.scan.IcebergTypes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * One snapshot of an Iceberg table as a Quiver table. Planning uses iceberg-core for the metadata
 * only: the snapshot's manifests, pruned by partition values and column bounds against the scan's
 * filters ({@link IcebergFilters}), give the data files and the delete files that apply to each;
 * files are split at row-group offsets into splits of about the table's target size (smaller when
 * that leaves partitions idle) and balanced over the scan's partitions. The data is read by {@link
 * IcebergScanExec} with Quiver's Parquet reader.
 */
public final class IcebergTable implements TableProvider {
  private final Table table;
  private final String name;
  private final Snapshot snapshot;
  private final org.apache.iceberg.Schema icebergSchema;
  private final Schema schema;
  private final int[] fieldIds;

  private IcebergTable(Table table, String name, Snapshot snapshot, org.apache.iceberg.Schema s) {
    this.table = table;
    this.name = name;
    this.snapshot = snapshot;
    this.icebergSchema = s;
    this.schema = IcebergTypes.toArrow(s, name);
    this.fieldIds = s.columns().stream().mapToInt(Types.NestedField::fieldId).toArray();
    checkSupported();
  }

  /** The table at its current snapshot (none for a table without data yet). */
  public static IcebergTable current(Table table, String name) {
    return new IcebergTable(table, name, table.currentSnapshot(), table.schema());
  }

  /** The table at snapshot {@code snapshotId}, with the schema that snapshot was written with. */
  public static IcebergTable atSnapshot(Table table, String name, long snapshotId) {
    Snapshot s = table.snapshot(snapshotId);
    if (s == null) {
      throw new DataSourceException(
          "Iceberg table " + name + " has no snapshot " + snapshotId + "; " + snapshotList(table));
    }
    return new IcebergTable(table, name, s, SnapshotUtil.schemaFor(table, snapshotId));
  }

  /** The table as it was at {@code epochMillis}: the snapshot current then. */
  public static IcebergTable asOf(Table table, String name, long epochMillis) {
    Long id = SnapshotUtil.nullableSnapshotIdAsOfTime(table, epochMillis);
    if (id == null) {
      throw new DataSourceException(
          "Iceberg table "
              + name
              + " had no snapshot at "
              + java.time.Instant.ofEpochMilli(epochMillis)
              + " (UTC); "
              + snapshotList(table));
    }
    return atSnapshot(table, name, id);
  }

  private static String snapshotList(Table table) {
    List<String> shown = new ArrayList<>();
    for (Snapshot s : table.snapshots()) {
      shown.add(s.snapshotId() + " at " + java.time.Instant.ofEpochMilli(s.timestampMillis()));
    }
    return shown.isEmpty() ? "it has no snapshots" : "its snapshots are " + shown;
  }

  private void checkSupported() {
    int version =
        table instanceof org.apache.iceberg.HasTableOperations ops
            ? ops.operations().current().formatVersion()
            : 2;
    if (version > 3) {
      throw new UnsupportedFeatureException(
          "Iceberg table " + name + " has format version " + version + "; Quiver reads 1 to 3");
    }
    for (Types.NestedField f : icebergSchema.columns()) {
      if (f.initialDefault() != null) {
        throw new UnsupportedFeatureException(
            "Iceberg table "
                + name
                + ": column "
                + f.name()
                + " has a default value for rows written before it (format v3), which Quiver"
                + " does not read yet");
      }
    }
  }

  /** The Iceberg table. */
  public Table table() {
    return table;
  }

  /** The snapshot read, or null when the table has none. */
  public Snapshot snapshot() {
    return snapshot;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public TableStatistics statistics() {
    if (snapshot == null) {
      return TableStatistics.of(0, 0);
    }
    Map<String, String> summary = snapshot.summary();
    String rows = summary == null ? null : summary.get("total-records");
    String bytes = summary == null ? null : summary.get("total-files-size");
    if (rows == null || bytes == null) {
      return TableStatistics.unknown();
    }
    try {
      return TableStatistics.of(Long.parseLong(rows), Long.parseLong(bytes));
    } catch (NumberFormatException e) {
      return TableStatistics.unknown();
    }
  }

  @Override
  public ExecutionPlan scan(ScanRequest request) {
    int target = Math.max(1, request.targetPartitions());
    List<FileScanTask> files = new ArrayList<>();
    if (snapshot != null) {
      TableScan scan =
          table
              .newScan()
              .useSnapshot(snapshot.snapshotId())
              .project(icebergSchema)
              .filter(IcebergFilters.toExpression(request.filters(), icebergSchema))
              .ignoreResiduals();
      try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
        for (FileScanTask t : tasks) {
          files.add(t);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    long total = files.stream().mapToLong(t -> t.file().fileSizeInBytes()).sum();
    long tableSplit =
        PropertyUtil.propertyAsLong(
            table.properties(), TableProperties.SPLIT_SIZE, TableProperties.SPLIT_SIZE_DEFAULT);
    long splitSize = Math.min(tableSplit, Math.max(1L << 20, (total + target - 1) / target));
    List<IcebergSplit> splits = new ArrayList<>();
    for (FileScanTask file : files) {
      checkFormat(file);
      List<DeleteRef> deletes = file.deletes().stream().map(this::deleteRef).toList();
      for (FileScanTask part : file.split(splitSize)) {
        splits.add(
            new IcebergSplit(
                part.file().location(),
                part.file().fileSizeInBytes(),
                part.start(),
                part.length(),
                part.file().recordCount(),
                deletes));
      }
    }
    List<List<IcebergSplit>> partitions =
        splits.isEmpty()
            ? List.of(List.of())
            : FileSplits.balance(splits, IcebergSplit::length, Math.min(target, splits.size()));
    return new IcebergScanExec(
        name,
        schema,
        fieldIds,
        partitions,
        request.projection(),
        request.limit(),
        request.config().batchSize());
  }

  private void checkFormat(FileScanTask task) {
    if (task.file().format() != FileFormat.PARQUET) {
      throw new UnsupportedFeatureException(
          "Iceberg table "
              + name
              + ": data file "
              + task.file().location()
              + " is "
              + task.file().format()
              + "; Quiver reads Parquet data files only");
    }
  }

  private DeleteRef deleteRef(DeleteFile d) {
    if (d.content() == FileContent.POSITION_DELETES && d.format() == FileFormat.PUFFIN) {
      return new DeleteRef(
          d.location(),
          DeleteRef.Kind.DELETION_VECTOR,
          d.fileSizeInBytes(),
          d.recordCount(),
          List.of(),
          d.contentOffset(),
          d.contentSizeInBytes(),
          d.referencedDataFile());
    }
    if (d.format() != FileFormat.PARQUET) {
      throw new UnsupportedFeatureException(
          "Iceberg table "
              + name
              + ": delete file "
              + d.location()
              + " is "
              + d.format()
              + "; Quiver reads Parquet delete files and deletion vectors only");
    }
    return new DeleteRef(
        d.location(),
        d.content() == FileContent.EQUALITY_DELETES
            ? DeleteRef.Kind.EQUALITY
            : DeleteRef.Kind.POSITION,
        d.fileSizeInBytes(),
        d.recordCount(),
        d.content() == FileContent.EQUALITY_DELETES ? d.equalityFieldIds() : List.of(),
        -1,
        -1,
        null);
  }

  @Override
  public String toString() {
    return "IcebergTable(" + name + (snapshot == null ? "" : "@" + snapshot.snapshotId()) + ")";
  }
}
