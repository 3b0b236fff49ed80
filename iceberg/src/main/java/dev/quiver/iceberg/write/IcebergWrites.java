package dev.quiver.iceberg.write;

import dev.quiver.binding.datasource.WritableTableCatalog;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.WriteConflictException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The statements that write Iceberg tables, each one commit: the rows are written as data files
 * first ({@link DataFileWriter}; for CREATE TABLE AS and INSERT by the query's tasks, {@link
 * IcebergWriteExec}, on a cluster the executors), then one snapshot adds them (and, for DELETE,
 * removes the files they replace). Iceberg retries a commit that lost a race ({@code
 * commit.retry.*}), re-checking its validations against what won; a commit that still fails, or
 * whose validation fails, is a {@link WriteConflictException}. A statement that fails before or at
 * its commit deletes the files it wrote, except when the catalog cannot say whether the commit
 * happened (then the files may be referenced and are kept).
 *
 * <p>DELETE is copy-on-write: the rows kept from the table's current snapshot are written as new
 * files that replace all of that snapshot's data files, validated against concurrent deletes
 * (snapshot isolation: rows appended concurrently stay).
 */
public final class IcebergWrites {
  private IcebergWrites() {}

  /** INSERT whose files the query's tasks write: one append of the files they report. */
  public static WritableTableCatalog.FileWrite appendWrite(Table table, String name) {
    return new TaskFileWrite(
        table,
        name,
        files -> {
          if (!files.isEmpty()) {
            AppendFiles append = table.newAppend();
            files.forEach(append::appendFile);
            append.commit();
          }
        });
  }

  /**
   * CREATE TABLE AS whose files the query's tasks write: the table that {@code create} creates and
   * the files they report, committed at once.
   */
  public static WritableTableCatalog.FileWrite createWrite(Transaction create, String name) {
    Table table = create.table();
    create
        .updateProperties()
        .set(TableProperties.DEFAULT_NAME_MAPPING, TableSchemas.nameMapping(table.schema()))
        .commit();
    return new TaskFileWrite(
        table,
        name,
        files -> {
          if (!files.isEmpty()) {
            AppendFiles append = create.newAppend();
            files.forEach(append::appendFile);
            append.commit();
          }
          create.commitTransaction();
        });
  }

  /**
   * DELETE: replaces the data files of {@code table}'s current snapshot by the rows {@code rows}
   * keeps of it; returns the rows deleted. A DELETE that deletes nothing commits nothing.
   */
  public static long delete(
      Table table, String name, WritableTableCatalog.DeleteRows rows, BufferAllocator allocator) {
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return 0;
    }
    long id = snapshot.snapshotId();
    long deleted = rows.deleted(id);
    if (deleted == 0) {
      return 0;
    }
    Map<String, DataFile> replaced = new LinkedHashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(id).planFiles()) {
      for (FileScanTask t : tasks) {
        replaced.putIfAbsent(t.file().location(), t.file().copyWithoutStats());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (DataFileWriter w = new DataFileWriter(table, name, allocator)) {
      commit(
          name,
          w,
          () -> {
            try (ArrowReader kept = rows.kept(id)) {
              w.write(kept);
            }
            OverwriteFiles overwrite = table.newOverwrite();
            replaced.values().forEach(overwrite::deleteFile);
            w.files().forEach(overwrite::addFile);
            overwrite.validateFromSnapshot(id);
            overwrite.validateNoConflictingDeletes();
            overwrite.commit();
          });
    }
    return deleted;
  }

  /** A write that may throw {@link IOException}. */
  interface Write {
    void run() throws IOException;
  }

  /** Runs {@code write}; on failure deletes what {@code w} wrote and names the failure. */
  private static long commit(String name, DataFileWriter w, Write write) {
    commit(name, w::abort, write);
    return w.rows();
  }

  /**
   * Runs {@code write}; on failure runs {@code abort} (unless it may have committed) and names it.
   */
  static void commit(String name, Runnable abort, Write write) {
    try {
      write.run();
    } catch (CommitStateUnknownException e) {
      // The commit may have happened: its files may be referenced, so they stay.
      throw new DataSourceException(
          "Iceberg table "
              + name
              + ": the catalog did not say whether the commit succeeded; check the table's"
              + " snapshots before writing again: "
              + e.getMessage(),
          e);
    } catch (CommitFailedException | ValidationException e) {
      abort.run();
      throw new WriteConflictException(
          "Iceberg table "
              + name
              + " was changed by another writer and the change conflicts with this one, so"
              + " nothing was written; run the statement again: "
              + e.getMessage(),
          e);
    } catch (QuiverException e) {
      abort.run();
      throw e;
    } catch (IOException | RuntimeException e) {
      abort.run();
      throw new DataSourceException(
          "Writing Iceberg table " + name + " failed, nothing was written: " + e.getMessage(), e);
    }
  }
}
