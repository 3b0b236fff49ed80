package dev.quiver.binding.sql;

import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Makes an explicit RIGHT or FULL join bind more tightly than the comma before it, as the SQL
 * standard, PostgreSQL and DuckDB read it: {@code FROM a, b FULL JOIN c ON b.k = c.k} is {@code a}
 * times {@code (b FULL JOIN c)}. Calcite's parser reads it as {@code (a, b) FULL JOIN c}, which
 * keeps every row of {@code c} even when {@code a} is empty (3 rows instead of none). An inner or
 * LEFT join gives the same rows either way, so only these two are regrouped.
 */
final class CommaJoins {
  private CommaJoins() {}

  /** Regroups the FROM clauses of {@code statement} in place. */
  static void regroup(SqlNode statement) {
    statement.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlSelect select && select.getFrom() != null) {
              select.setFrom(regroupFrom(select.getFrom()));
            }
            return super.visit(call);
          }
        });
  }

  private static SqlNode regroupFrom(SqlNode from) {
    if (!(from instanceof SqlJoin join)) {
      return from;
    }
    join.setLeft(regroupFrom(join.getLeft()));
    join.setRight(regroupFrom(join.getRight()));
    boolean preservesRight =
        join.getJoinType() == JoinType.RIGHT || join.getJoinType() == JoinType.FULL;
    if (preservesRight
        && join.getLeft() instanceof SqlJoin comma
        && comma.getJoinType() == JoinType.COMMA) {
      // (x, y) J r becomes x, (y J r); y J r may itself have a comma join on its left no more.
      join.setLeft(comma.getRight());
      comma.setRight(regroupFrom(join));
      return comma;
    }
    return from;
  }
}
