package dev.quiver.binding.sql;

import dev.quiver.binding.errors.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * {@code GROUP BY ALL} (DuckDB): groups by every select item that is not an aggregate, written as
 * their ordinals ({@code SELECT a, b + 1, sum(c) ... GROUP BY ALL} groups by 1, 2). Without such
 * items the query aggregates all rows into one, as without GROUP BY. {@code ORDER BY ALL [ASC|DESC]
 * [NULLS FIRST|LAST]} (DuckDB) sorts by every select item, left to right, the same way.
 */
final class GroupByAll {
  private GroupByAll() {}

  /**
   * Rewrites every {@code GROUP BY ALL} and {@code ORDER BY ALL} of {@code statement} in place;
   * {@code width} tells how many columns a SELECT with a star in its list has (known only to the
   * validator), or throws when it cannot.
   */
  static void expand(
      SqlNode statement, Predicate<String> isAggregate, ToIntFunction<SqlSelect> width) {
    statement.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlSelect select && isGroupByAll(select.getGroup())) {
              select.setGroupBy(keys(select, isAggregate));
            }
            if (call instanceof SqlSelect select && select.getOrderList() != null) {
              orderByAll(select, select.getOrderList(), width);
            }
            if (call instanceof SqlOrderBy order) {
              orderByAll(order.query, order.orderList, width);
            }
            return super.visit(call);
          }
        });
  }

  private static boolean isGroupByAll(SqlNodeList group) {
    return group != null
        && group.size() == 1
        && group.get(0) instanceof SqlIdentifier id
        && id.names.size() == 1
        && id.isComponentQuoted(0)
        && id.getSimple().equals("*");
  }

  /**
   * Replaces {@code ORDER BY ALL} in {@code orderList} of {@code query} with one key per column,
   * each with ALL's direction and null order.
   */
  private static void orderByAll(
      SqlNode query, SqlNodeList orderList, ToIntFunction<SqlSelect> width) {
    if (orderList.size() != 1) {
      return;
    }
    SqlNode key = orderList.get(0);
    List<SqlCall> modifiers = new ArrayList<>();
    while (key instanceof SqlCall call
        && (call.getKind() == SqlKind.DESCENDING
            || call.getKind() == SqlKind.NULLS_FIRST
            || call.getKind() == SqlKind.NULLS_LAST)) {
      modifiers.add(call);
      key = call.operand(0);
    }
    if (!(key instanceof SqlIdentifier id && isMark(id))) {
      return;
    }
    SqlNode first = query;
    while (first instanceof SqlCall call
        && !(first instanceof SqlSelect)
        && call.operandCount() > 0
        && call.getKind().belongsTo(SqlKind.SET_QUERY)) {
      first = call.operand(0);
    }
    if (!(first instanceof SqlSelect select)) {
      throw new QuiverException("ORDER BY ALL needs a SELECT (or set operation of SELECTs)");
    }
    int columns = select.getSelectList().size();
    for (SqlNode item : select.getSelectList()) {
      if (item instanceof SqlIdentifier star && star.isStar()) {
        columns = width.applyAsInt(select);
        break;
      }
    }
    List<SqlNode> keys = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      SqlNode k =
          SqlLiteral.createExactNumeric(String.valueOf(i + 1), orderList.getParserPosition());
      for (int m = modifiers.size() - 1; m >= 0; m--) {
        k = modifiers.get(m).getOperator().createCall(modifiers.get(m).getParserPosition(), k);
      }
      keys.add(k);
    }
    orderList.clear();
    orderList.addAll(keys);
  }

  private static boolean isMark(SqlIdentifier id) {
    return id.names.size() == 1 && id.isComponentQuoted(0) && id.getSimple().equals("*");
  }

  private static SqlNodeList keys(SqlSelect select, Predicate<String> isAggregate) {
    List<SqlNode> keys = new ArrayList<>();
    SqlNodeList items = select.getSelectList();
    for (int i = 0; i < items.size(); i++) {
      SqlNode item = items.get(i);
      if (!containsAggregate(item, isAggregate)) {
        keys.add(SqlLiteral.createExactNumeric(String.valueOf(i + 1), item.getParserPosition()));
      }
    }
    return keys.isEmpty() ? null : new SqlNodeList(keys, select.getGroup().getParserPosition());
  }

  /** Whether {@code node} calls an aggregate function outside a window (OVER) or subquery. */
  private static boolean containsAggregate(SqlNode node, Predicate<String> isAggregate) {
    boolean[] found = new boolean[1];
    node.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call.getKind() == SqlKind.OVER || call instanceof SqlSelect) {
              return null;
            }
            if (call.getOperator().isAggregator()
                || isAggregate.test(call.getOperator().getName().toUpperCase(Locale.ROOT))) {
              found[0] = true;
              return null;
            }
            return super.visit(call);
          }
        });
    return found[0];
  }
}
