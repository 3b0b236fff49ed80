package dev.quiver.iceberg.write;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.iceberg.io.QuiverFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;

/**
 * Writes its input's rows as data files of one Iceberg table, partition by partition: each
 * partition writes the rows it reads ({@link DataFileWriter}, reaching the store with its task's
 * settings, so on a cluster the executor writes with its own credentials) and returns one row per
 * file written, the file's Iceberg description as JSON ({@link #FILE_COLUMN}: path, partition,
 * record count, size, metrics), for the session to commit. A partition that fails deletes the files
 * it wrote before it fails.
 */
public final class IcebergWriteExec extends BaseExecutionPlan {
  /** The one output column: a written file as Iceberg's content-file JSON. */
  public static final String FILE_COLUMN = "data_file";

  /** The output's schema. */
  static final Schema OUTPUT =
      new Schema(
          List.of(new Field(FILE_COLUMN, FieldType.notNullable(ArrowType.Utf8.INSTANCE), null)));

  private final ExecutionPlan input;
  private final WriteTarget target;

  /** Writes {@code input}'s rows (the table's columns, in order) into {@code target}. */
  public IcebergWriteExec(ExecutionPlan input, WriteTarget target) {
    super(OUTPUT, List.of(input));
    this.input = input;
    this.target = target;
  }

  /** The table written. */
  public WriteTarget target() {
    return target;
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.unknown(input.partitionCount());
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new IcebergWriteExec(children.get(0), target);
  }

  @Override
  public String displayDetails() {
    return "table=" + target.name();
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new BatchStream() {
      private boolean done;

      @Override
      public Schema schema() {
        return OUTPUT;
      }

      @Override
      public VectorSchemaRoot next() {
        if (done) {
          return null;
        }
        done = true;
        List<String> files = write(partition, context);
        VectorSchemaRoot out = VectorSchemaRoot.create(OUTPUT, context.allocator());
        VarCharVector v = (VarCharVector) out.getVector(0);
        v.allocateNew(files.size());
        for (int i = 0; i < files.size(); i++) {
          v.setSafe(i, files.get(i).getBytes(StandardCharsets.UTF_8));
        }
        out.setRowCount(files.size());
        return out;
      }

      @Override
      public void close() {
        done = true;
      }
    };
  }

  /** Writes partition {@code partition}'s rows; returns the files' JSON descriptions. */
  private List<String> write(int partition, TaskContext context) {
    QuiverFileIO io = new QuiverFileIO(context.config());
    try (DataFileWriter w = new DataFileWriter(target, io, context.allocator());
        BatchStream rows = input.execute(partition, context)) {
      try {
        VectorSchemaRoot batch;
        while ((batch = rows.next()) != null) {
          try (VectorSchemaRoot b = batch) {
            w.add(b);
          }
        }
        w.finish();
      } catch (IOException e) {
        w.abort();
        throw new UncheckedIOException(
            "Writing a data file of Iceberg table " + target.name() + " failed", e);
      } catch (RuntimeException e) {
        w.abort();
        throw e;
      }
      return w.files().stream().map((DataFile f) -> ContentFileParser.toJson(f, w.spec())).toList();
    }
  }
}
