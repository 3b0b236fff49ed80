package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.physical.ExecutionPlan;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A {@link TableCatalog} whose tables SQL can create, fill, delete from and drop: {@code CREATE
 * TABLE cat.ns.t [PARTITIONED BY (...)] AS query}, {@code CREATE TABLE cat.ns.t (columns)}, {@code
 * INSERT INTO}, {@code DELETE FROM} and {@code DROP TABLE}. Each call is one atomic change of the
 * catalog: when it fails (also when {@code rows} fails while being read, as a cancelled query
 * does), the table is as it was. For CREATE TABLE AS and INSERT the query's own tasks write the
 * data files ({@link FileWrite}: on a cluster, the executors) and the session publishes them with
 * one commit; for DELETE the session computes the rows and the catalog writes and publishes them.
 */
public interface WritableTableCatalog extends TableCatalog {
  /**
   * One field of {@code PARTITIONED BY}: {@code column} (transform {@code identity}), or {@code
   * transform(column)} for {@code year}, {@code month}, {@code day}, {@code hour}, or {@code
   * transform(argument, column)} for {@code bucket} and {@code truncate}; {@code argument} is null
   * when not given.
   */
  record PartitionField(String transform, Integer argument, String column) {
    @Override
    public String toString() {
      if (transform.equals("identity")) {
        return column;
      }
      return transform + "(" + (argument == null ? "" : argument + ", ") + column + ")";
    }
  }

  /** The rows of a DELETE, from one version of the table. */
  interface DeleteRows {
    /** How many rows of version {@code snapshotId} the DELETE removes. */
    long deleted(long snapshotId);

    /** The rows of version {@code snapshotId} the DELETE keeps, in the table's schema. */
    ArrowReader kept(long snapshotId);
  }

  /**
   * A write whose data files the query's own tasks write (on a cluster, the executors), published
   * by one commit in the session. {@link #writer} goes over the query's plan; each of its
   * partitions writes the rows it computes and returns one row describing each file written. The
   * session collects those rows and calls {@link #commit} once; when the query fails or is
   * cancelled it calls {@link #abort} instead.
   */
  interface FileWrite {
    /** The plan over {@code rows} (in the table's schema) whose partitions write them as files. */
    ExecutionPlan writer(ExecutionPlan rows);

    /**
     * Publishes the files {@code written} (every output row of {@link #writer}'s plan) in one
     * commit; returns the rows they hold. A commit that fails deletes the files, as {@link #abort}.
     */
    long commit(List<VectorSchemaRoot> written);

    /** Deletes the files this write's tasks wrote (best effort): they were never committed. */
    void abort();
  }

  /**
   * The columns a table created from {@code columns} would have, each in the type the catalog
   * stores (for instance SMALLINT as INT): the rows written by {@link #createWrite} are cast to it.
   *
   * @throws UnsupportedFeatureException naming a column whose type the catalog cannot store
   */
  Schema storedSchema(Schema columns);

  /**
   * CREATE TABLE: creates table {@code namespace.name} with {@code schema} (as {@link
   * #storedSchema} gives it) and {@code partitionBy} when the returned write commits, holding the
   * rows its tasks wrote (a table created from a column list commits no rows).
   *
   * @throws dev.quiver.binding.errors.QuiverException when the table exists or the namespace does
   *     not
   */
  FileWrite createWrite(
      String namespace, String name, Schema schema, List<PartitionField> partitionBy);

  /** INSERT: a write appending rows (in the table's schema) to table {@code namespace.name}. */
  FileWrite insertWrite(String namespace, String name);

  /** Deletes rows of table {@code namespace.name}; returns how many were deleted. */
  long delete(String namespace, String name, DeleteRows rows, BufferAllocator allocator);

  /** Drops table {@code namespace.name}; returns whether there was one. */
  boolean drop(String namespace, String name);
}
