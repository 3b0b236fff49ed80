package dev.quiver.binding.dataframe;

import dev.quiver.binding.logical.LogicalPlan;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A lazy query. Transformations return new DataFrames and run nothing; {@link #collect}, {@link
 * #executeStream}, {@link #count}, {@link #show} and the writes execute it.
 */
public interface DataFrame {
  /** Keeps the given expressions as output columns (use {@link Expr#alias} to name them). */
  DataFrame select(Expr... exprs);

  /** Keeps the named columns, in this order. */
  DataFrame select(String... columns);

  /** Keeps rows where {@code predicate} is true. */
  DataFrame filter(Expr predicate);

  /**
   * Groups by {@code groupBy} and computes {@code aggregates} (e.g. {@code Expr.sum(col("x"))}).
   */
  DataFrame aggregate(List<Expr> groupBy, List<Expr> aggregates);

  /** Joins on equality of the named columns, pairwise. */
  DataFrame join(
      DataFrame right, JoinType type, List<String> leftColumns, List<String> rightColumns);

  /** Joins on an arbitrary predicate over both sides' columns. */
  DataFrame join(DataFrame right, JoinType type, Expr on);

  /**
   * Orders rows; keys made with {@link Expr#asc}/{@link Expr#desc} (plain expressions sort
   * ascending).
   */
  DataFrame sort(Expr... keys);

  /** Keeps the first {@code fetch} rows. */
  DataFrame limit(long fetch);

  /** Skips {@code offset} rows, then keeps at most {@code fetch}. */
  DataFrame limit(long offset, long fetch);

  /** Appends the rows of {@code other} (UNION ALL); schemas must match. */
  DataFrame union(DataFrame other);

  /** Removes duplicate rows. */
  DataFrame distinct();

  /** Runs the query; the caller owns (and must close) the returned batches. */
  List<VectorSchemaRoot> collect();

  /**
   * Runs the query and returns its rows as Java values (dates as {@code LocalDate}, decimals as
   * {@code BigDecimal}, ...; see {@link Row}). Holds the whole result on the heap: for large
   * results read the Arrow batches of {@link #executeStream()}.
   */
  default List<Row> rows() {
    List<VectorSchemaRoot> batches = collect();
    try {
      return Row.of(schema().getFields().stream().map(f -> f.getName()).toList(), batches);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  /**
   * Runs the query as a stream; closing the reader cancels the query and frees its memory. The
   * reader is also {@link Cancellable}, so another thread can stop the query while it is read.
   */
  ArrowReader executeStream();

  /** Runs the query and returns its row count. */
  long count();

  /** Prints up to 20 rows as a table to standard output. */
  void show();

  /** Prints up to {@code maxRows} rows as a table to standard output. */
  void show(int maxRows);

  /** Output schema, without running the query. */
  Schema schema();

  /** The logical and physical plans as text. */
  String explain();

  /** With {@code analyze}, runs the query and adds per-operator rows, batches, time and spills. */
  String explain(boolean analyze);

  /** Runs the query and writes its rows as Parquet files into directory {@code path}. */
  void writeParquet(String path);

  /** Runs the query and writes its rows as CSV (with header) into directory {@code path}. */
  void writeCsv(String path);

  /** The optimized logical plan. */
  LogicalPlan logicalPlan();
}
