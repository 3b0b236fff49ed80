package dev.quiver.iceberg.write;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.binding.datasource.WritableTableCatalog;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.iceberg.io.QuiverFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;

/**
 * A statement whose data files the query's tasks write ({@link IcebergWriteExec}, on a cluster the
 * executors) and which this process publishes: the files the tasks report become one commit. The
 * files of a failed or cancelled query, and those a failed task attempt left beside the ones
 * committed, are found by the statement's write id in their names under the table's data folder and
 * deleted, best effort: a file whose deletion fails stays, unreferenced (garbage, never data), and
 * a task attempt still running when the statement ends may write after the sweep.
 */
final class TaskFileWrite implements WritableTableCatalog.FileWrite {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Publishes the files in one commit. */
  interface Publish {
    void commit(List<DataFile> files) throws IOException;
  }

  private final WriteTarget target;
  private final PartitionSpec spec;
  private final QuiverFileIO io;
  private final Publish publish;

  TaskFileWrite(Table table, String name, Publish publish) {
    this.target = WriteTarget.of(table, name, UUID.randomUUID().toString());
    this.spec = table.spec();
    this.io = DataFileWriter.fileIo(table, name);
    this.publish = publish;
  }

  @Override
  public ExecutionPlan writer(ExecutionPlan rows) {
    return new IcebergWriteExec(rows, target);
  }

  @Override
  public long commit(List<VectorSchemaRoot> written) {
    List<DataFile> files = new ArrayList<>();
    try {
      files.addAll(files(written));
    } catch (RuntimeException e) {
      abort();
      throw e;
    }
    long rows = files.stream().mapToLong(DataFile::recordCount).sum();
    IcebergWrites.commit(target.name(), this::abort, () -> publish.commit(files));
    Set<String> kept = new HashSet<>();
    files.forEach(f -> kept.add(QuiverFileIO.storeLocation(f.location())));
    sweep(kept);
    return rows;
  }

  private List<DataFile> files(List<VectorSchemaRoot> written) {
    List<DataFile> files = new ArrayList<>();
    for (VectorSchemaRoot b : written) {
      if (b.getSchema().getFields().size() != 1
          || !b.getSchema().getFields().get(0).getName().equals(IcebergWriteExec.FILE_COLUMN)) {
        throw new QuiverException(
            "Writing Iceberg table "
                + target.name()
                + ": the query's planner did not run the table write (its rows are "
                + b.getSchema()
                + "); nothing was written");
      }
      VarCharVector v = (VarCharVector) b.getVector(0);
      for (int i = 0; i < b.getRowCount(); i++) {
        try {
          files.add((DataFile) ContentFileParser.fromJson(JSON.readTree(v.get(i)), spec));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return files;
  }

  @Override
  public void abort() {
    sweep(Set.of());
  }

  /** Deletes this statement's files under the data folder but those {@code kept}. */
  private void sweep(Set<String> kept) {
    try {
      for (String f : io.listBelow(target.dataLocation())) {
        String file = f.substring(f.lastIndexOf('/') + 1);
        if (file.startsWith(target.writeId()) && !kept.contains(QuiverFileIO.storeLocation(f))) {
          try {
            io.deleteFile(f);
          } catch (RuntimeException e) {
            // Best effort: the file was never committed.
          }
        }
      }
    } catch (RuntimeException e) {
      // Best effort: the folder could not be listed; its files were never committed.
    }
  }
}
