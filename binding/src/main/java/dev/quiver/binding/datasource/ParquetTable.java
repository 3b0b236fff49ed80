package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.io.Globs;
import dev.quiver.binding.io.Listings;
import dev.quiver.binding.io.ObjectReader;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.StoredObject;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.scan.FileSplits;
import dev.quiver.binding.physical.scan.ParquetFooterBytes;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.physical.scan.ParquetSchemas;
import dev.quiver.binding.physical.scan.ParquetSplit;
import dev.quiver.binding.physical.scan.TypeNormalizer;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.format.FileMetaData;

/**
 * A Parquet file or directory of files. Opening reads every footer (row counts and sizes for
 * statistics and splitting, schema for validation); scans split the files over partitions by bytes,
 * dividing files by row group when there are fewer files than partitions, and Quiver's own reader
 * decodes them (flat and nested columns alike). Filters in the scan request skip files and row
 * groups whose footer statistics prove no row can match; the planner's filter above the scan still
 * applies them to the rows read.
 */
public final class ParquetTable implements TableProvider {
  /**
   * Option: whether scans divide files by row group where that helps ({@code true}, the default),
   * or make every file one split ({@code false}).
   */
  public static final String ROW_GROUP_READER = BindingSettings.PARQUET_ROW_GROUP_READER.key();

  private final String path;
  private final Schema schema;
  private final List<ParquetFile> files;
  private final Set<String> prunable;
  private final int partitionColumns;

  /**
   * One file of the table with what its footer says, its version (an S3 ETag, or null), and its
   * values of the partition columns (Hive folders; null for NULL).
   */
  record ParquetFile(
      String location,
      long size,
      String version,
      ParquetFooter footer,
      FileMetaData metadata,
      List<String> partitionValues) {}

  private ParquetTable(
      String path,
      Schema schema,
      List<ParquetFile> files,
      Set<String> prunable,
      int partitionColumns) {
    this.path = path;
    this.schema = schema;
    this.files = List.copyOf(files);
    this.prunable = Set.copyOf(prunable);
    this.partitionColumns = partitionColumns;
  }

  /** Opens (reads the footers of) a Parquet file or a directory of them, local or in S3. */
  public static ParquetTable open(String path) {
    return open(path, null);
  }

  /**
   * Opens (reads the footers of) a Parquet file or a folder of them: a local path, a {@code
   * file://} URI or {@code s3://bucket/prefix}, with the store settings of {@code config} (null:
   * the environment's).
   */
  public static ParquetTable open(String path, SessionConfig config) {
    return open(path, config, ParquetOptions.DEFAULT);
  }

  /**
   * Opens a Parquet file or folder as {@link #open(String, SessionConfig)} does, reading partition
   * folders as {@code options} say.
   */
  public static ParquetTable open(String path, SessionConfig config, ParquetOptions options) {
    return open(path, config, options, Listings.none());
  }

  /**
   * Opens a Parquet file or folder as {@link #open(String, SessionConfig, ParquetOptions)} does,
   * taking its listing from {@code listings} (a statement's, so that it lists each location once).
   */
  public static ParquetTable open(
      String path, SessionConfig config, ParquetOptions options, Listings listings) {
    String root = ObjectStores.normalize(path);
    ObjectStore store = ObjectStores.forLocation(root, config);
    List<StoredObject> listed = listObjects(store, root, "Parquet", listings);
    boolean single = listed.size() == 1 && listed.get(0).location().equals(root);
    if (!single) {
      String marker = store.resolve(root, FileWriters.EMPTY_SCHEMA_FILE);
      for (StoredObject o : listed) {
        if (o.location().equals(marker)) {
          return new ParquetTable(path, readEmptySchema(store, o), List.of(), Set.of(), 0);
        }
      }
    }
    String base = hiveRoot(root);
    List<StoredObject> objects =
        selectFiles(listed, root, single, "Parquet", ParquetTable::isParquetCandidate);
    List<String> relative =
        objects.stream().map(o -> single ? "" : relativePath(base, o.location())).toList();
    List<Field> partitionFields =
        options.hivePartitioning() && !single
            ? HivePartitions.columns(relative, options.partitionTypes(), path)
            : List.of();
    List<ParquetFile> files = new ArrayList<>();
    Schema schema = null;
    String schemaSource = null;
    Set<String> prunable = null;
    for (int k = 0; k < objects.size(); k++) {
      StoredObject o = objects.get(k);
      FileMetaData m;
      try (ObjectReader in = store.open(o.location(), o.size(), o.version())) {
        m = ParquetFooterBytes.cachedMetadata(in);
      }
      List<String> partitionValues = new ArrayList<>();
      if (!partitionFields.isEmpty()) {
        for (String[] kv : HivePartitions.parse(relative.get(k))) {
          partitionValues.add(kv[1]);
        }
      }
      files.add(
          new ParquetFile(
              o.location(),
              o.size(),
              o.version(),
              ParquetFooter.of(o.location(), o.size(), m),
              m,
              java.util.Collections.unmodifiableList(partitionValues)));
      Schema raw = ParquetSchemas.toArrow(m, o.location());
      // Statistics are trusted only for columns with a safely ordered type in every file.
      Set<String> safe = new HashSet<>();
      for (Field f : raw.getFields()) {
        if (f.getChildren().isEmpty() && ParquetPruning.prunableFileType(f.getType())) {
          safe.add(f.getName());
        }
      }
      if (prunable == null) {
        prunable = safe;
      } else {
        prunable.retainAll(safe);
      }
      Schema s = TypeNormalizer.normalize(raw);
      if (schema == null) {
        schema = s;
        schemaSource = o.location();
        for (Field f : s.getFields()) {
          TypeNormalizer.checkSupported(f, o.location());
        }
      } else if (!sameColumns(schema, s)) {
        throw new DataSourceException(
            "Parquet file "
                + o.location()
                + " has schema "
                + describe(s)
                + " but "
                + schemaSource
                + " has "
                + describe(schema)
                + "; every file of table "
                + path
                + " needs the same columns");
      }
    }
    if (!partitionFields.isEmpty()) {
      List<Field> all = new ArrayList<>(schema.getFields());
      for (Field p : partitionFields) {
        if (all.stream().anyMatch(f -> f.getName().equalsIgnoreCase(p.getName()))) {
          throw new DataSourceException(
              "Table "
                  + path
                  + ": column "
                  + p.getName()
                  + " is both in the files and a partition folder ("
                  + p.getName()
                  + "=...); rename one, or open the table without Hive partitioning");
        }
      }
      all.addAll(partitionFields);
      schema = new Schema(all);
    }
    return new ParquetTable(
        path, schema, files, prunable == null ? Set.of() : prunable, partitionFields.size());
  }

  private static Schema readEmptySchema(ObjectStore store, StoredObject file) {
    byte[] bytes;
    try (ObjectReader in = store.open(file.location(), file.size())) {
      bytes = in.read(0, (int) in.size());
    }
    try (BufferAllocator allocator = new RootAllocator();
        org.apache.arrow.vector.ipc.ArrowFileReader reader =
            new org.apache.arrow.vector.ipc.ArrowFileReader(
                new org.apache.arrow.vector.ipc.SeekableReadChannel(
                    new org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel(bytes)),
                allocator)) {
      return reader.getVectorSchemaRoot().getSchema();
    } catch (IOException | RuntimeException e) {
      throw new DataSourceException(
          "Cannot read the schema file " + file.location() + ": " + e.getMessage(), e);
    }
  }

  private static boolean sameColumns(Schema a, Schema b) {
    if (a.getFields().size() != b.getFields().size()) {
      return false;
    }
    for (int i = 0; i < a.getFields().size(); i++) {
      Field x = a.getFields().get(i);
      Field y = b.getFields().get(i);
      if (!x.getName().equals(y.getName()) || !x.getType().equals(y.getType())) {
        return false;
      }
    }
    return true;
  }

  private static String describe(Schema s) {
    return s.getFields().stream().map(f -> f.getName() + " " + f.getType()).toList().toString();
  }

  private static boolean isParquetCandidate(String name) {
    // Arrow's dataset writer names files "data_0" etc. without an extension.
    return name.endsWith(".parquet") || !name.contains(".");
  }

  /**
   * Lists {@code root}: the object itself when it is one, else every object below it; a missing
   * location is an error naming the format.
   */
  static List<StoredObject> listObjects(
      ObjectStore store, String root, String format, Listings listings) {
    try {
      return listings.list(store, root);
    } catch (ObjectStoreException e) {
      if (e.reason() == ObjectStoreException.Reason.NOT_FOUND) {
        throw new ObjectStoreException(
            e.reason(), "Cannot read " + format + " data: " + e.getMessage(), e);
      }
      throw e;
    }
  }

  /**
   * The data files among {@code listed} (all below {@code root}, or {@code root} itself): hidden
   * and underscore-prefixed files and folders skipped, names {@code accept}ed; throws when there
   * are none.
   */
  static List<StoredObject> selectFiles(
      List<StoredObject> listed,
      String root,
      boolean single,
      String format,
      java.util.function.Predicate<String> accept) {
    if (single) {
      return listed;
    }
    List<StoredObject> found = new ArrayList<>();
    String base = Globs.base(root);
    for (StoredObject o : listed) {
      String relative = relativePath(base, o.location());
      if (relative.matches("(.*/)?[._].*")) {
        continue;
      }
      String name = relative.substring(relative.lastIndexOf('/') + 1);
      if (accept.test(name)) {
        found.add(o);
      }
    }
    if (found.isEmpty() && Globs.isGlob(root)) {
      throw new DataSourceException(
          "No " + format + " files match " + root + "; check the path and its wildcards");
    }
    if (found.isEmpty()) {
      throw new DataSourceException(
          "Directory "
              + root
              + " contains no "
              + format
              + " files; point to a file or a directory holding some");
    }
    return found;
  }

  /**
   * Where the Hive folders of {@code root}'s files start: below a folder, or below a glob's base;
   * DuckDB also reads {@code name=value} folders named in a glob's base ({@code
   * events/cat=a/*.parquet} has column cat), so those count too.
   */
  private static String hiveRoot(String root) {
    String base = Globs.base(root);
    int eq = Globs.isGlob(root) ? base.indexOf('=') : -1;
    return eq < 0 ? base : base.substring(0, Math.max(0, base.lastIndexOf('/', eq)));
  }

  /** The path of {@code location} below {@code root}, with '/' separators. */
  static String relativePath(String root, String location) {
    String rel = location.substring(root.length());
    rel = rel.replace(java.io.File.separatorChar, '/');
    while (rel.startsWith("/")) {
      rel = rel.substring(1);
    }
    return rel;
  }

  /** The path the table was opened from. */
  public String path() {
    return path;
  }

  /** The table's files (local paths or object URIs), sorted. */
  public List<String> files() {
    return files.stream().map(ParquetFile::location).toList();
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public TableStatistics statistics() {
    long rows = 0;
    long bytes = 0;
    for (ParquetFile f : files) {
      rows += f.footer().numRows();
      bytes += f.footer().uncompressedBytes();
    }
    return TableStatistics.of(rows, bytes);
  }

  @Override
  public ExecutionPlan scan(ScanRequest request) {
    ParquetPruning pruning = ParquetPruning.of(request.filters(), schema, prunable);
    int target = Math.max(1, request.targetPartitions());
    boolean byRowGroup = request.config().get(BindingSettings.PARQUET_ROW_GROUP_READER);
    List<ParquetFile> kept = new ArrayList<>();
    List<boolean[]> keptGroups = new ArrayList<>();
    int candidates = 0;
    HivePartitions.Pruner folders =
        new HivePartitions.Pruner(request.filters(), schema, partitionColumns);
    for (ParquetFile f : files) {
      if (f.footer().numRows() == 0) {
        continue;
      }
      candidates++;
      if (!folders.keeps(f.partitionValues())) {
        continue;
      }
      List<ParquetFooter.RowGroup> groups = f.footer().rowGroups();
      boolean[] read = new boolean[groups.size()];
      boolean any = false;
      for (int g = 0; g < groups.size(); g++) {
        read[g] = pruning.isEmpty() ? groups.get(g).numRows() > 0 : !pruning.canSkip(groups.get(g));
        any |= read[g];
      }
      if (any) {
        kept.add(f);
        keptGroups.add(read);
      }
    }
    folders.close();
    List<SizedSplit> units = new ArrayList<>();
    boolean divided = false;
    for (int k = 0; k < kept.size(); k++) {
      ParquetFile f = kept.get(k);
      boolean[] read = keptGroups.get(k);
      List<ParquetFooter.RowGroup> groups = f.footer().rowGroups();
      int reading = 0;
      int nonEmpty = 0;
      for (int g = 0; g < groups.size(); g++) {
        reading += read[g] ? 1 : 0;
        nonEmpty += groups.get(g).numRows() > 0 ? 1 : 0;
      }
      // Divide a file by row group when pruning skipped some of them, or when there are fewer
      // files than partitions and the file has row groups to spread.
      boolean divide = reading < nonEmpty || (reading > 1 && kept.size() < target);
      String path = f.location();
      if (byRowGroup) {
        if (divide) {
          divided = true;
          for (int g = 0; g < groups.size(); g++) {
            if (read[g]) {
              units.add(
                  new SizedSplit(
                      ParquetSplit.rowGroups(path, g, 1, f.size())
                          .withPartitionValues(f.partitionValues())
                          .withVersion(f.version()),
                      groups.get(g).compressedBytes()));
            }
          }
        } else {
          units.add(
              new SizedSplit(
                  ParquetSplit.rowGroups(path, 0, groups.size(), f.size())
                      .withPartitionValues(f.partitionValues())
                      .withVersion(f.version()),
                  f.footer().fileBytes()));
        }
      } else {
        units.add(
            new SizedSplit(
                ParquetSplit.wholeFile(path, f.size())
                    .withPartitionValues(f.partitionValues())
                    .withVersion(f.version()),
                f.footer().fileBytes()));
      }
    }
    List<List<ParquetSplit>> partitions = new ArrayList<>();
    // Row groups are small next to whole files: cutting the ordered list into contiguous runs
    // balances well and keeps each partition's reads sequential and its splits few.
    List<List<SizedSplit>> assigned =
        divided
            ? FileSplits.contiguous(units, SizedSplit::bytes, target)
            : FileSplits.balance(units, SizedSplit::bytes, target);
    for (List<SizedSplit> p : assigned) {
      partitions.add(mergeAdjacent(p));
    }
    return ParquetScanExec.ofSplits(
        schema,
        partitions,
        request.projection(),
        request.limit(),
        request.config().batchSize(),
        candidates,
        partitionColumns);
  }

  /** A split and the bytes it reads, for balancing partitions. */
  private record SizedSplit(ParquetSplit split, long bytes) {}

  /** Joins consecutive row-group splits of one file into ranges. */
  private static List<ParquetSplit> mergeAdjacent(List<SizedSplit> splits) {
    List<ParquetSplit> out = new ArrayList<>();
    for (SizedSplit s : splits) {
      ParquetSplit next = s.split();
      ParquetSplit last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null
          && !last.isWholeFile()
          && !next.isWholeFile()
          && last.path().equals(next.path())
          && last.firstRowGroup() + last.rowGroupCount() == next.firstRowGroup()) {
        out.set(
            out.size() - 1,
            ParquetSplit.rowGroups(
                    last.path(),
                    last.firstRowGroup(),
                    last.rowGroupCount() + next.rowGroupCount(),
                    last.fileSize())
                .withPartitionValues(last.partitionValues())
                .withVersion(last.version()));
      } else {
        out.add(next);
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "ParquetTable(" + path + ", " + files.size() + " files)";
  }
}
