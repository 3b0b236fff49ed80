package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.datasource.WritableTableCatalog;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.physical.ExecutionPlan;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSnapshot;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * Writes to the tables of attached catalogs ({@link WritableTableCatalog}). CREATE TABLE AS and
 * INSERT plan their query with the catalog's {@link WritableTableCatalog.FileWrite} over it, so
 * that the tasks computing the rows (a cluster's executors when distributed) write the data files,
 * and commit the files the tasks report once, here. DELETE computes the rows on the session's
 * planner and streams them to the catalog, which writes and commits them in one change. A DELETE
 * reads one version of the table, named by its snapshot id ({@code FOR SYSTEM_TIME AS OF}), so its
 * count and its kept rows agree with the version the catalog replaces.
 */
final class CatalogTableWrites {
  /** A table of a writable catalog, as a statement names it. */
  record Target(
      WritableTableCatalog catalog,
      String namespace,
      String table,
      String name,
      TableProvider provider) {}

  private CatalogTableWrites() {}

  /**
   * The writable catalog that {@code path} ({@code catalog.namespace.table}) names.
   *
   * @throws QuiverException when the name has not three parts or the catalog is read-only
   */
  static WritableTableCatalog writable(SessionState session, List<String> path, String verb) {
    String name = String.join(".", path);
    if (path.size() != 3) {
      throw new UnknownTableException(
          name, List.of("catalog.namespace.table for a table of an attached catalog"));
    }
    TableCatalog catalog = session.catalog().attached(path.get(0));
    if (!(catalog instanceof WritableTableCatalog w)) {
      throw new UnsupportedFeatureException(
          verb + " " + name + " is not possible: catalog " + path.get(0) + " is read-only");
    }
    return w;
  }

  /** The existing table {@code path} names, for INSERT and DELETE. */
  static Target target(SessionState session, List<String> path, String verb) {
    WritableTableCatalog catalog = writable(session, path, verb);
    String name = String.join(".", path);
    TableProvider provider = catalog.table(path.get(1), path.get(2));
    if (provider == null) {
      Catalog.checkNamespace(path.get(0), catalog, path.get(1));
      throw new UnknownTableException(
          name, Suggestions.closest(path.get(2), catalog.tables(path.get(1))));
    }
    return new Target(catalog, path.get(1), path.get(2), name, provider);
  }

  /** Appends the rows of {@code rows} (in the table's schema) to {@code target}. */
  static long insert(SessionState session, Target target, DataFrameImpl rows) {
    return write(session, rows, target.catalog().insertWrite(target.namespace(), target.table()));
  }

  /**
   * Runs {@code rows} with {@code write}'s writer over its plan, then commits the files its tasks
   * report; a query that fails or is cancelled aborts the write. Returns the rows written.
   */
  static long write(
      SessionState session, DataFrameImpl rows, WritableTableCatalog.FileWrite write) {
    List<VectorSchemaRoot> written;
    try {
      ExecutionPlan plan = session.physicalPlan(rows.logicalPlan(), write::writer);
      try (QueryExecution q = session.execute(plan)) {
        written = q.collect(session.allocator());
      }
    } catch (RuntimeException e) {
      write.abort();
      throw e;
    }
    try {
      return write.commit(written);
    } finally {
      written.forEach(VectorSchemaRoot::close);
    }
  }

  /**
   * {@code DELETE FROM target [AS alias] [WHERE condition]}: the rows kept are those for which the
   * condition is not TRUE.
   */
  static long delete(
      SessionState session,
      Target target,
      SqlIdentifier id,
      String alias,
      SqlNode condition,
      SqlParserPos pos) {
    WritableTableCatalog.DeleteRows rows =
        new WritableTableCatalog.DeleteRows() {
          @Override
          public long deleted(long snapshotId) {
            SqlNode hit =
                condition == null
                    ? SqlLiteral.createBoolean(true, pos)
                    : SqlStdOperatorTable.IS_TRUE.createCall(pos, condition.clone(pos));
            SqlNode count = SqlStdOperatorTable.COUNT.createCall(pos, SqlIdentifier.star(pos));
            List<VectorSchemaRoot> batches =
                frame(select(SqlNodeList.of(count), snapshotId, hit)).collect();
            try {
              VectorSchemaRoot b = batches.get(0);
              return ((Number) b.getVector(0).getObject(0)).longValue();
            } finally {
              batches.forEach(VectorSchemaRoot::close);
            }
          }

          @Override
          public ArrowReader kept(long snapshotId) {
            SqlNode keep =
                condition == null
                    ? SqlLiteral.createBoolean(false, pos)
                    : SqlStdOperatorTable.NOT.createCall(
                        pos, SqlStdOperatorTable.IS_TRUE.createCall(pos, condition.clone(pos)));
            return frame(select(SqlNodeList.of(SqlIdentifier.star(pos)), snapshotId, keep))
                .executeStream();
          }

          private SqlSelect select(SqlNodeList items, long snapshotId, SqlNode where) {
            SqlNode version =
                SqlLiteral.createExactNumeric(Long.toString(Math.abs(snapshotId)), pos);
            if (snapshotId < 0) {
              version = SqlStdOperatorTable.UNARY_MINUS.createCall(pos, version);
            }
            SqlNode from =
                SqlStdOperatorTable.AS.createCall(
                    pos, new SqlSnapshot(pos, id, version), new SqlIdentifier(alias, pos));
            return new SqlSelect(
                pos, null, items, from, where, null, null, null, null, null, null, null, null);
          }

          private DataFrameImpl frame(SqlSelect query) {
            return session.planning(
                () -> new DataFrameImpl(session, session.pipeline().toRel(query)));
          }
        };
    return target.catalog().delete(target.namespace(), target.table(), rows, session.allocator());
  }
}
