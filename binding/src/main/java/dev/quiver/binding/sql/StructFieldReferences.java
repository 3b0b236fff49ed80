package dev.quiver.binding.sql;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code s.a.b} where {@code s} names no table in scope but a STRUCT column (DuckDB, Spark and
 * Trino read it so; Calcite wants {@code t.s.a.b}): rewritten to {@code s['a']['b']}, which Calcite
 * resolves against the column. An identifier whose first part is a table name or alias of an
 * enclosing query is left alone, so {@code t.col} and {@code t.s.a} mean what they always did; an
 * unknown {@code x.y} now reports column {@code x} unknown instead of table {@code x}.
 */
final class StructFieldReferences {
  private StructFieldReferences() {}

  /** Rewrites the qualified struct field references of {@code statement} in place. */
  static void rewrite(SqlNode statement) {
    new Rewriter().statement(statement);
  }

  private static final class Rewriter {
    /** A scope whose names are unknown (the ORDER BY of a set operation): rewrite nothing. */
    private static final Set<String> OPAQUE = new HashSet<>();

    /** Table names and aliases of the enclosing queries, innermost first. */
    private final Deque<Set<String>> scopes = new ArrayDeque<>();

    void statement(SqlNode node) {
      if (node instanceof SqlUpdate u) {
        scopes.push(targetNames(u.getTargetTable(), u.getAlias()));
        u.setOperand(3, expression(u.getCondition()));
        u.setOperand(2, expression(u.getSourceExpressionList()));
        scopes.pop();
        return;
      }
      if (node instanceof SqlDelete d) {
        scopes.push(targetNames(d.getTargetTable(), d.getAlias()));
        d.setOperand(1, expression(d.getCondition()));
        scopes.pop();
        return;
      }
      expression(node);
    }

    private static Set<String> targetNames(SqlNode table, SqlIdentifier alias) {
      Set<String> names = new HashSet<>();
      tableNames(table, names);
      if (alias != null) {
        names.add(alias.getSimple().toLowerCase(Locale.ROOT));
      }
      return names;
    }

    /** Rewrites {@code node} and what it contains; returns its replacement (or itself). */
    private SqlNode expression(SqlNode node) {
      if (node == null) {
        return null;
      }
      if (node instanceof SqlIdentifier id) {
        return identifier(id);
      }
      if (node instanceof SqlNodeList list) {
        for (int i = 0; i < list.size(); i++) {
          SqlNode e = list.get(i);
          SqlNode r = expression(e);
          if (r != e) {
            list.set(i, r);
          }
        }
        return list;
      }
      if (node instanceof SqlSelect select) {
        select(select);
        return select;
      }
      if (node instanceof SqlOrderBy orderBy) {
        expression(orderBy.query);
        if (orderBy.query instanceof SqlSelect inner) {
          Set<String> names = new HashSet<>();
          fromNames(inner.getFrom(), names);
          scopes.push(names);
        } else {
          scopes.push(OPAQUE);
        }
        try {
          expression(orderBy.orderList);
        } finally {
          scopes.pop();
        }
        return orderBy;
      }
      if (node instanceof SqlCall call) {
        List<SqlNode> operands = call.getOperandList();
        for (int i = 0; i < operands.size(); i++) {
          SqlNode e = operands.get(i);
          SqlNode r = expression(e);
          if (r != e) {
            try {
              call.setOperand(i, r);
            } catch (UnsupportedOperationException | AssertionError ignored) {
              // A call that cannot take a new operand keeps its identifier as written.
            }
          }
        }
      }
      return node;
    }

    private void select(SqlSelect select) {
      Set<String> names = new HashSet<>();
      fromNames(select.getFrom(), names);
      scopes.push(names);
      try {
        from(select.getFrom());
        SqlNodeList items = select.getSelectList();
        for (int i = 0; items != null && i < items.size(); i++) {
          if (items.get(i) instanceof SqlIdentifier id) {
            SqlNode r = identifier(id);
            if (r != id) {
              // Named after the field, as t.s.a would be.
              SqlParserPos pos = id.getParserPosition();
              items.set(
                  i,
                  SqlStdOperatorTable.AS.createCall(
                      pos, r, new SqlIdentifier(id.names.get(id.names.size() - 1), pos)));
            }
          }
        }
        expression(items);
        select.setWhere(expression(select.getWhere()));
        expression(select.getGroup());
        select.setHaving(expression(select.getHaving()));
        expression(select.getWindowList());
        expression(select.getOrderList());
      } finally {
        scopes.pop();
      }
    }

    /** Rewrites the subqueries and join conditions of a FROM clause, not its table names. */
    private void from(SqlNode node) {
      if (node == null || node instanceof SqlIdentifier) {
        return;
      }
      if (node instanceof SqlJoin join) {
        from(join.getLeft());
        from(join.getRight());
        SqlNode condition = join.getCondition();
        SqlNode r = expression(condition);
        if (r != condition) {
          join.setOperand(5, r);
        }
        return;
      }
      if (node.getKind() == SqlKind.AS && node instanceof SqlBasicCall as) {
        from(as.operand(0));
        return;
      }
      if (node instanceof SqlCall call
          && (call.getKind() == SqlKind.COLLECTION_TABLE || call.getKind() == SqlKind.LATERAL)) {
        return;
      }
      if (node instanceof SqlCall snapshot && snapshot.getKind() == SqlKind.SNAPSHOT) {
        // t FOR SYSTEM_TIME AS OF point (FOR VERSION/TIMESTAMP AS OF): t stays a table name.
        SqlNode point = snapshot.operand(1);
        SqlNode r = expression(point);
        if (r != point) {
          snapshot.setOperand(1, r);
        }
        return;
      }
      expression(node);
    }

    /** Adds the names a FROM clause gives its tables (names and aliases, lower case). */
    private static void fromNames(SqlNode node, Set<String> out) {
      if (node == null) {
        return;
      }
      if (node instanceof SqlIdentifier id) {
        tableNames(id, out);
      } else if (node instanceof SqlJoin join) {
        fromNames(join.getLeft(), out);
        fromNames(join.getRight(), out);
      } else if (node.getKind() == SqlKind.AS && node instanceof SqlBasicCall as) {
        out.add(((SqlIdentifier) as.operand(1)).getSimple().toLowerCase(Locale.ROOT));
        fromNames(as.operand(0), out);
      } else if (node.getKind() == SqlKind.COLLECTION_TABLE && node instanceof SqlCall table) {
        fromNames(table.operand(0), out);
      } else if (node.getKind() == SqlKind.SNAPSHOT && node instanceof SqlCall snapshot) {
        fromNames(snapshot.operand(0), out);
      } else if (node instanceof SqlCall call && call.getOperator() instanceof SqlFunction fn) {
        // A table function without an alias (FROM read_parquet('f.parquet')) is named after it.
        out.add(fn.getName().toLowerCase(Locale.ROOT));
      }
    }

    private static void tableNames(SqlNode table, Set<String> out) {
      if (table instanceof SqlIdentifier id && !id.isStar()) {
        for (String n : id.names) {
          out.add(n.toLowerCase(Locale.ROOT));
        }
      }
    }

    private SqlNode identifier(SqlIdentifier id) {
      if (id.names.size() < 2 || id.isStar() || scopes.isEmpty()) {
        return id;
      }
      String first = id.names.get(0).toLowerCase(Locale.ROOT);
      for (Set<String> scope : scopes) {
        if (scope == OPAQUE || scope.contains(first)) {
          return id;
        }
      }
      SqlParserPos pos = id.getParserPosition();
      SqlNode out = new SqlIdentifier(id.names.get(0), id.getComponentParserPosition(0));
      for (int i = 1; i < id.names.size(); i++) {
        out =
            SqlStdOperatorTable.ITEM.createCall(
                pos, out, SqlLiteral.createCharString(id.names.get(i), pos));
      }
      return out;
    }
  }
}
