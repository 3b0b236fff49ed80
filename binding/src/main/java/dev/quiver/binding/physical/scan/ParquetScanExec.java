package dev.quiver.binding.physical.scan;

import dev.quiver.binding.DataSourceException;
import dev.quiver.binding.QuiverException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.TaskContext;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.arrow.dataset.file.FileFormat;
import org.apache.arrow.dataset.file.FileSystemDatasetFactory;
import org.apache.arrow.dataset.jni.NativeMemoryPool;
import org.apache.arrow.dataset.scanner.ScanOptions;
import org.apache.arrow.dataset.scanner.Scanner;
import org.apache.arrow.dataset.source.Dataset;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Reads Parquet files through Arrow Dataset (JNI). Each partition reads its own list of files; only
 * the projected columns are decoded, batches have at most {@code batchSize} rows, and a pushed-down
 * limit stops the partition early. Batches are imported into the query's allocator and converted to
 * the engine's internal types.
 */
public final class ParquetScanExec extends FileScanExec {
  private final int filesBeforePruning;

  /**
   * Creates the scan.
   *
   * @param tableSchema the table's schema in internal types
   * @param partitionFiles absolute file paths read by each partition (at least one partition)
   * @param projection indices into {@code tableSchema} of the columns returned; null = all
   * @param limit rows each partition needs at most
   * @param batchSize rows per batch
   */
  public ParquetScanExec(
      Schema tableSchema,
      List<List<String>> partitionFiles,
      int[] projection,
      OptionalLong limit,
      int batchSize) {
    this(tableSchema, partitionFiles, projection, limit, batchSize, -1);
  }

  /**
   * Creates the scan after pruning by statistics.
   *
   * @param filesBeforePruning files the table would have read without filters; -1 when no pruning
   *     was attempted
   */
  public ParquetScanExec(
      Schema tableSchema,
      List<List<String>> partitionFiles,
      int[] projection,
      OptionalLong limit,
      int batchSize,
      int filesBeforePruning) {
    super(tableSchema, partitionFiles, projection, limit, batchSize);
    this.filesBeforePruning = filesBeforePruning;
  }

  /** Files the table would have read without filters, or -1 when no pruning was attempted. */
  public int filesBeforePruning() {
    return filesBeforePruning;
  }

  /** Files dropped because their statistics prove no row matches the filters. */
  public int prunedFiles() {
    return filesBeforePruning < 0 ? 0 : filesBeforePruning - fileCount();
  }

  @Override
  protected String fileCountDetail() {
    return filesBeforePruning < 0 || prunedFiles() == 0
        ? super.fileCountDetail()
        : "files=" + fileCount() + "/" + filesBeforePruning + " after pruning";
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new ParquetStream(partitionFiles().get(partition), context.allocator());
  }

  @Override
  protected String partitionListing() {
    List<String> names =
        partitionFiles().stream()
            .map(p -> p.stream().map(f -> Path.of(f).getFileName().toString()).toList().toString())
            .toList();
    String shown = names.toString();
    if (shown.length() > 200) {
      shown = shown.substring(0, 200) + "...";
    }
    return " " + shown;
  }

  private final class ParquetStream implements BatchStream {
    private final List<String> files;
    private final BufferAllocator allocator;
    private ImportAllocator importAllocator;
    private FileSystemDatasetFactory factory;
    private Dataset dataset;
    private Scanner scanner;
    private ArrowReader reader;
    private boolean done;
    private long remaining = limit().orElse(Long.MAX_VALUE);

    ParquetStream(List<String> files, BufferAllocator allocator) {
      this.files = files;
      this.allocator = allocator;
      this.done = files.isEmpty() || remaining <= 0;
    }

    @Override
    public Schema schema() {
      return ParquetScanExec.this.schema();
    }

    private void open() {
      String[] uris = files.stream().map(f -> Path.of(f).toUri().toString()).toArray(String[]::new);
      Set<String> columns = new LinkedHashSet<>();
      for (Field f : ParquetScanExec.this.schema().getFields()) {
        columns.add(f.getName());
      }
      // Arrow's C-data import leaks its array wrapper when an allocator limit interrupts it, so
      // batches land in an unlimited staging allocator and are then moved to the query's
      // allocator, whose limit is checked after the move.
      importAllocator = new ImportAllocator(allocator, "ParquetScanExec-import");
      factory =
          new FileSystemDatasetFactory(
              importAllocator.allocator(),
              NativeMemoryPool.getDefault(),
              FileFormat.PARQUET,
              uris);
      dataset = factory.finish();
      String[] columnNames = columns.toArray(String[]::new);
      scanner = dataset.newScan(new ScanOptions(batchSize(), Optional.of(columnNames)));
      reader = scanner.scanBatches();
    }

    @Override
    public VectorSchemaRoot next() {
      if (done) {
        return null;
      }
      try {
        if (reader == null) {
          open();
        }
        while (true) {
          if (!reader.loadNextBatch()) {
            done = true;
            return null;
          }
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          if (root.getRowCount() > 0) {
            return take(root);
          }
        }
      } catch (OutOfMemoryException e) {
        throw ScanBatches.exhausted("reading Parquet files " + files, e);
      } catch (QuiverException e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
          if (c instanceof OutOfMemoryException oom) {
            throw ScanBatches.exhausted("reading Parquet files " + files, oom);
          }
        }
        throw new DataSourceException(
            "Cannot read Parquet files "
                + files
                + ": "
                + e.getMessage()
                + "; check that the files exist and are valid Parquet",
            e);
      }
    }

    private VectorSchemaRoot take(VectorSchemaRoot root) {
      int rows = root.getRowCount();
      Schema out = ParquetScanExec.this.schema();
      List<FieldVector> vectors = new ArrayList<>(out.getFields().size());
      VectorSchemaRoot batch;
      try {
        for (int i = 0; i < out.getFields().size(); i++) {
          Field target = out.getFields().get(i);
          int first = indexOf(out, target.getName());
          if (first < i) {
            // The same column projected twice: share the first copy's buffers.
            TransferPair pair = vectors.get(first).getTransferPair(allocator);
            pair.splitAndTransfer(0, rows);
            vectors.add((FieldVector) pair.getTo());
            continue;
          }
          FieldVector source = root.getVector(target.getName());
          TransferPair pair = source.getTransferPair(source.getField(), allocator);
          pair.transfer();
          vectors.add(
              TypeNormalizer.convert((FieldVector) pair.getTo(), target, reader, allocator));
        }
      } catch (RuntimeException e) {
        vectors.forEach(FieldVector::close);
        throw e;
      }
      List<Field> fields = vectors.stream().map(FieldVector::getField).toList();
      batch = ScanBatches.withSchema(new VectorSchemaRoot(fields, vectors, rows), out);
      if (rows > remaining) {
        VectorSchemaRoot cut = ScanBatches.slice(batch, null, 0, (int) remaining, allocator);
        batch.close();
        batch = ScanBatches.withSchema(cut, out);
      }
      if (allocator.getHeadroom() < 0) {
        long held = allocator.getAllocatedMemory();
        batch.close();
        throw new dev.quiver.binding.ResourcesExhaustedException(
            "Resources exhausted while reading Parquet files "
                + files
                + ": the query holds "
                + held
                + " bytes, over its allocator limit of "
                + allocator.getLimit()
                + "; raise quiver.execution.memory_limit or read fewer columns");
      }
      remaining -= batch.getRowCount();
      if (remaining <= 0) {
        done = true;
      }
      return batch;
    }

    private int indexOf(Schema schema, String name) {
      List<Field> fields = schema.getFields();
      for (int i = 0; i < fields.size(); i++) {
        if (fields.get(i).getName().equals(name)) {
          return i;
        }
      }
      return -1;
    }

    @Override
    public void close() {
      done = true;
      RuntimeException failure = null;
      for (AutoCloseable c : Arrays.asList(reader, scanner, dataset, factory)) {
        if (c == null) {
          continue;
        }
        try {
          c.close();
        } catch (Exception e) {
          if (failure == null) {
            failure =
                new DataSourceException(
                    "Cannot close the scan of " + files + ": " + e.getMessage(), e);
          }
        }
      }
      if (importAllocator != null) {
        importAllocator.closeWhenEmpty();
      }
      reader = null;
      scanner = null;
      dataset = null;
      factory = null;
      importAllocator = null;
      if (failure != null) {
        throw failure;
      }
    }
  }
}
