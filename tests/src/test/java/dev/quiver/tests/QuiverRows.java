package dev.quiver.tests;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.tpch.TpchData;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Quiver (the binding, in process) over the TPC-H Parquet files: the engine under test. */
final class QuiverRows implements RowEngine {
  private final SessionContext ctx;
  private final String name;
  private final AutoCloseable owner;

  QuiverRows(Path tpchDir, int partitions) {
    this(
        new SessionContext(
            Differential.configured(new SessionConfig().withTargetPartitions(partitions))),
        tpchDir,
        "quiver",
        () -> {});
  }

  /**
   * Quiver over {@code ctx} (plain or decorated) with the TPC-H tables of {@code tpchDir}
   * registered; closing closes the session, then {@code owner} (e.g. its cluster).
   */
  QuiverRows(SessionContext ctx, Path tpchDir, String name, AutoCloseable owner) {
    this.ctx = ctx;
    this.name = name;
    this.owner = owner;
    for (String table : TpchData.TABLES) {
      ctx.registerParquet(table, TpchData.tableDirectory(tpchDir, table).toString());
    }
  }

  /**
   * Quiver over {@code ctx} with the TPC-H tables registered from folders under {@code prefix}
   * (e.g. {@code s3://bucket/sf0.1}).
   */
  QuiverRows(SessionContext ctx, String prefix, String name, AutoCloseable owner) {
    this.ctx = ctx;
    this.name = name;
    this.owner = owner;
    for (String table : TpchData.TABLES) {
      ctx.registerParquet(table, prefix + "/" + table);
    }
  }

  /** The session queries run on. */
  SessionContext session() {
    return ctx;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public QueryResult query(String sql) {
    // Memory tables (CREATE TABLE) hold memory of the session's allocator between statements.
    long held = ctx.allocator().getAllocatedMemory();
    DataFrame df = ctx.sql(sql);
    List<VectorSchemaRoot> batches = df.collect();
    QueryResult result;
    try {
      Schema schema = df.schema();
      for (VectorSchemaRoot batch : batches) {
        if (!batch.getSchema().equals(schema)) {
          throw new AssertionError(
              name
                  + " returned batches of schema "
                  + batch.getSchema()
                  + " but the query's schema() is "
                  + schema
                  + "\n"
                  + sql);
        }
      }
      List<String> columns = new ArrayList<>();
      List<Boolean> floating = new ArrayList<>();
      for (Field f : schema.getFields()) {
        columns.add(f.getName());
        floating.add(Values.isFloating(f.getType()));
      }
      List<List<Object>> rows = new ArrayList<>();
      for (VectorSchemaRoot batch : batches) {
        List<FieldVector> vectors = batch.getFieldVectors();
        for (int r = 0; r < batch.getRowCount(); r++) {
          List<Object> row = new ArrayList<>(vectors.size());
          for (FieldVector v : vectors) {
            row.add(Values.fromArrow(v, r));
          }
          rows.add(row);
        }
      }
      result = new QueryResult(columns, floating, rows);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    long outstanding = ctx.allocator().getAllocatedMemory() - held;
    if (outstanding != 0) {
      throw new AssertionError(
          "Quiver left " + outstanding + " bytes allocated after the query\n" + sql);
    }
    return result;
  }

  @Override
  public long execute(String sql) {
    DataFrame df = ctx.sql(sql);
    Schema schema = df.schema();
    long count = -1;
    if (schema.getFields().size() == 1 && schema.getFields().get(0).getName().equals("count")) {
      count = 0;
      for (dev.quiver.binding.dataframe.Row r : df.rows()) {
        count += ((Number) r.get(0)).longValue();
      }
    } else {
      df.collect().forEach(VectorSchemaRoot::close);
    }
    return count;
  }

  @Override
  public void close() {
    try {
      ctx.close();
    } finally {
      try {
        owner.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing " + name + " failed", e);
      }
    }
  }
}
