package dev.quiver.binding.datasource;

import dev.quiver.binding.DataSourceException;
import dev.quiver.binding.ScanRequest;
import dev.quiver.binding.TableProvider;
import dev.quiver.binding.TableStatistics;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.scan.FileSplits;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.physical.scan.ParquetSplit;
import dev.quiver.binding.physical.scan.TypeNormalizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.arrow.dataset.file.FileFormat;
import org.apache.arrow.dataset.file.FileSystemDatasetFactory;
import org.apache.arrow.dataset.jni.NativeMemoryPool;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A Parquet file or directory of files. Opening reads every footer (row counts and sizes for
 * statistics and splitting, schema for validation); scans split the files over partitions by bytes,
 * dividing files by row group when there are fewer files than partitions. Files Quiver's row-group
 * reader supports are read by it (it decodes faster than Arrow Dataset), others whole by Arrow
 * Dataset. Filters in the scan request skip files and row groups whose footer statistics prove no
 * row can match; the planner's filter above the scan still applies them to the rows read.
 */
public final class ParquetTable implements TableProvider {
  /**
   * Option: whether scans read the files it supports with Quiver's own row-group reader, dividing
   * them by row group where that helps ({@code true}, the default), or read every file whole
   * through Arrow Dataset ({@code false}).
   */
  public static final String ROW_GROUP_READER = "quiver.parquet.row_group_reader";

  private final String path;
  private final Schema schema;
  private final List<ParquetFile> files;
  private final Set<String> prunable;
  private final Map<Path, Boolean> rowGroupSupport = new ConcurrentHashMap<>();

  /** One file of the table with what its footer says. */
  record ParquetFile(Path path, ParquetFooter footer) {}

  private ParquetTable(String path, Schema schema, List<ParquetFile> files, Set<String> prunable) {
    this.path = path;
    this.schema = schema;
    this.files = List.copyOf(files);
    this.prunable = Set.copyOf(prunable);
  }

  /** Opens (reads the footers of) a Parquet file or a directory of them. */
  public static ParquetTable open(String path) {
    Path root = toPath(path);
    Path emptyMarker = root.resolve(FileWriters.EMPTY_SCHEMA_FILE);
    if (Files.isDirectory(root) && Files.isRegularFile(emptyMarker)) {
      return new ParquetTable(path, readEmptySchema(emptyMarker), List.of(), Set.of());
    }
    List<Path> paths = listFiles(root, "Parquet", ParquetTable::isParquetCandidate);
    List<ParquetFile> files = new ArrayList<>();
    for (Path p : paths) {
      files.add(new ParquetFile(p, ParquetFooter.read(p)));
    }
    Schema schema = null;
    Path schemaSource = null;
    Set<String> prunable = null;
    try (BufferAllocator allocator = new RootAllocator()) {
      for (Path p : paths) {
        Schema raw = inspect(p, allocator);
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
          schemaSource = p;
          for (Field f : s.getFields()) {
            TypeNormalizer.checkSupported(f, p.toString());
          }
        } else if (!sameColumns(schema, s)) {
          throw new DataSourceException(
              "Parquet file "
                  + p
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
    }
    return new ParquetTable(path, schema, files, prunable == null ? Set.of() : prunable);
  }

  private static Schema readEmptySchema(Path file) {
    try (BufferAllocator allocator = new RootAllocator();
        java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file);
        org.apache.arrow.vector.ipc.ArrowFileReader reader =
            new org.apache.arrow.vector.ipc.ArrowFileReader(ch, allocator)) {
      return reader.getVectorSchemaRoot().getSchema();
    } catch (IOException | RuntimeException e) {
      throw new DataSourceException(
          "Cannot read the schema file " + file + ": " + e.getMessage(), e);
    }
  }

  private static Schema inspect(Path file, BufferAllocator allocator) {
    try (FileSystemDatasetFactory factory =
        new FileSystemDatasetFactory(
            allocator,
            NativeMemoryPool.getDefault(),
            FileFormat.PARQUET,
            file.toUri().toString())) {
      return factory.inspect();
    } catch (RuntimeException e) {
      throw new DataSourceException(
          "Cannot read the schema of Parquet file "
              + file
              + ": "
              + e.getMessage()
              + "; check that it is a valid Parquet file",
          e);
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

  static Path toPath(String path) {
    String p = path.startsWith("file://") ? path.substring("file://".length()) : path;
    return Path.of(p).toAbsolutePath().normalize();
  }

  private static boolean isParquetCandidate(Path p) {
    String name = p.getFileName().toString();
    // Arrow's dataset writer names files "data_0" etc. without an extension.
    return name.endsWith(".parquet") || !name.contains(".");
  }

  /**
   * Lists {@code root} itself when it is a file, else the matching files below it (recursively,
   * sorted, hidden and underscore-prefixed files skipped); throws when there are none.
   */
  static List<Path> listFiles(Path root, String format, java.util.function.Predicate<Path> accept) {
    if (!Files.exists(root)) {
      throw new DataSourceException(
          format
              + " path "
              + root
              + " does not exist; check the path (relative paths resolve against "
              + Path.of("").toAbsolutePath()
              + ")");
    }
    if (!Files.isReadable(root)) {
      throw new DataSourceException(
          format + " path " + root + " is not readable; check its permissions");
    }
    if (Files.isRegularFile(root)) {
      return List.of(root);
    }
    List<Path> found;
    try (Stream<Path> walk = Files.walk(root)) {
      found =
          walk.filter(Files::isRegularFile)
              .filter(p -> !root.relativize(p).toString().matches("(.*/)?[._].*"))
              .filter(accept)
              .sorted()
              .toList();
    } catch (IOException | java.io.UncheckedIOException e) {
      throw new DataSourceException("Cannot list directory " + root + ": " + e.getMessage(), e);
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

  /** The path the table was opened from. */
  public String path() {
    return path;
  }

  /** The table's files, sorted. */
  public List<Path> files() {
    return files.stream().map(ParquetFile::path).toList();
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
    String readerOption = request.config().get(ROW_GROUP_READER);
    boolean ownReader = readerOption == null || !readerOption.trim().equalsIgnoreCase("false");
    List<ParquetFile> kept = new ArrayList<>();
    List<boolean[]> keptGroups = new ArrayList<>();
    int candidates = 0;
    for (ParquetFile f : files) {
      if (f.footer().numRows() == 0) {
        continue;
      }
      candidates++;
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
      String path = f.path().toString();
      if (ownReader && rowGroupsReadable(f.path())) {
        if (divide) {
          divided = true;
          for (int g = 0; g < groups.size(); g++) {
            if (read[g]) {
              units.add(
                  new SizedSplit(
                      ParquetSplit.rowGroups(path, g, 1), groups.get(g).compressedBytes()));
            }
          }
        } else {
          // Quiver's decoder outruns Arrow Dataset's on the files it supports; see the reader.
          units.add(
              new SizedSplit(
                  ParquetSplit.rowGroups(path, 0, groups.size()), f.footer().fileBytes()));
        }
      } else {
        units.add(new SizedSplit(ParquetSplit.wholeFile(path), f.footer().fileBytes()));
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
        candidates);
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
                last.path(), last.firstRowGroup(), last.rowGroupCount() + next.rowGroupCount()));
      } else {
        out.add(next);
      }
    }
    return out;
  }

  /**
   * Whether Quiver's row-group reader can read {@code file}'s row groups by themselves; decided
   * once per file.
   */
  private boolean rowGroupsReadable(Path file) {
    return rowGroupSupport.computeIfAbsent(
        file, f -> ParquetScanExec.unsupportedRowGroupReason(f, schema) == null);
  }

  @Override
  public String toString() {
    return "ParquetTable(" + path + ", " + files.size() + " files)";
  }
}
