package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlPostfixOperator;
import org.apache.calcite.sql.SqlPrefixOperator;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlWindow;
import org.apache.calcite.sql.dialect.PostgresqlSqlDialect;
import org.apache.calcite.sql.fun.SqlCase;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.util.NlsString;

/**
 * Readable names for select items written without an alias, derived from their text as DuckDB does:
 * {@code count(*)}, {@code sum(l_quantity)}, {@code (a + 1)}, {@code CAST(x AS BIGINT)} instead of
 * Calcite's {@code EXPR$0}. Function names are lower case, operators are parenthesized, names and
 * literals are shown as written (unquoted names lower-cased, as the parser folds them).
 */
final class ColumnNames {
  private ColumnNames() {}

  /**
   * Gives every unaliased expression in a select list of {@code statement} its derived name, and
   * the columns of a VALUES list in FROM the names {@code col0, col1, ...} (as DuckDB does).
   */
  static SqlNode name(SqlNode statement) {
    statement.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlSelect select && select.getFrom() != null) {
              select.setFrom(namedValues(select.getFrom()));
            }
            if (call instanceof org.apache.calcite.sql.SqlJoin join) {
              join.setLeft(namedValues(join.getLeft()));
              join.setRight(namedValues(join.getRight()));
            }
            if (call instanceof SqlSelect select) {
              SqlNodeList items = select.getSelectList();
              for (int i = 0; i < items.size(); i++) {
                SqlNode item = items.get(i);
                if (needsName(item)) {
                  SqlParserPos pos = item.getParserPosition();
                  items.set(
                      i,
                      org.apache.calcite.sql.fun.SqlStdOperatorTable.AS.createCall(
                          pos, item, new SqlIdentifier(of(item), pos)));
                }
              }
            }
            return super.visit(call);
          }
        });
    if (statement.getKind() == SqlKind.VALUES) {
      // A VALUES query: SELECT * FROM (VALUES ...) AS valueslist(col0, ...).
      SqlParserPos pos = statement.getParserPosition();
      return new SqlSelect(
          pos,
          null,
          SqlNodeList.of(SqlIdentifier.star(pos)),
          namedValues(statement),
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null);
    }
    return statement;
  }

  /** {@code from} with column names if it is a VALUES list without them. */
  private static SqlNode namedValues(SqlNode from) {
    SqlNode values = from;
    String alias = "valueslist";
    if (from.getKind() == SqlKind.AS) {
      List<SqlNode> operands = ((SqlCall) from).getOperandList();
      if (operands.size() != 2 || operands.get(0).getKind() != SqlKind.VALUES) {
        return from;
      }
      values = operands.get(0);
      alias = ((SqlIdentifier) operands.get(1)).getSimple();
    } else if (from.getKind() != SqlKind.VALUES) {
      return from;
    }
    List<SqlNode> rows = ((SqlCall) values).getOperandList();
    if (rows.isEmpty() || !(rows.get(0) instanceof SqlCall row) || row.getKind() != SqlKind.ROW) {
      return from;
    }
    SqlParserPos pos = from.getParserPosition();
    List<SqlNode> operands = new ArrayList<>();
    operands.add(values);
    operands.add(new SqlIdentifier(alias, pos));
    for (int i = 0; i < row.operandCount(); i++) {
      operands.add(new SqlIdentifier("col" + i, pos));
    }
    return org.apache.calcite.sql.fun.SqlStdOperatorTable.AS.createCall(pos, operands);
  }

  /** Whether Calcite would invent a name ({@code EXPR$n}) for select item {@code item}. */
  private static boolean needsName(SqlNode item) {
    // SELECT * EXCLUDE (...) / REPLACE (...) expand to columns that keep their names.
    return !(item instanceof SqlIdentifier)
        && item.getKind() != SqlKind.AS
        && !(item instanceof org.apache.calcite.sql.SqlStarExclude)
        && !(item instanceof org.apache.calcite.sql.SqlStarReplace);
  }

  /** The readable name of expression {@code node}. */
  static String of(SqlNode node) {
    StringBuilder out = new StringBuilder();
    render(node, out);
    return out.toString();
  }

  private static void render(SqlNode node, StringBuilder out) {
    if (node == null) {
      out.append("NULL");
    } else if (node instanceof SqlIdentifier id) {
      out.append(id.isStar() && id.names.size() == 1 ? "*" : id.toString());
    } else if (node instanceof SqlNumericLiteral n) {
      out.append(n.toValue());
    } else if (node instanceof SqlCharStringLiteral s) {
      NlsString value = s.getValueAs(NlsString.class);
      out.append('\'').append(value.getValue().replace("'", "''")).append('\'');
    } else if (node instanceof SqlLiteral lit) {
      renderLiteral(lit, out);
    } else if (node instanceof SqlDynamicParam) {
      out.append('?');
    } else if (node instanceof SqlDataTypeSpec spec) {
      out.append(fallback(spec));
    } else if (node instanceof SqlIntervalQualifier q) {
      out.append(q.toString());
    } else if (node instanceof SqlNodeList list) {
      join(list.getList(), ", ", out);
    } else if (node instanceof SqlCase c) {
      renderCase(c, out);
    } else if (node instanceof SqlSelect || node instanceof SqlWindow) {
      out.append(node instanceof SqlSelect ? "(" : "").append(fallback(node));
      out.append(node instanceof SqlSelect ? ")" : "");
    } else if (node instanceof SqlCall call) {
      renderCall(call, out);
    } else {
      out.append(fallback(node));
    }
  }

  private static void renderLiteral(SqlLiteral lit, StringBuilder out) {
    switch (lit.getTypeName()) {
      case NULL -> out.append("NULL");
      case BOOLEAN -> out.append(Boolean.TRUE.equals(lit.getValue()) ? "true" : "false");
      case SYMBOL -> out.append(String.valueOf(lit.getValue()).toLowerCase(Locale.ROOT));
      default -> out.append(fallback(lit));
    }
  }

  private static void renderCase(SqlCase c, StringBuilder out) {
    out.append("CASE");
    if (c.getValueOperand() != null) {
      out.append(' ');
      render(c.getValueOperand(), out);
    }
    for (int i = 0; i < c.getWhenOperands().size(); i++) {
      out.append(" WHEN ");
      render(c.getWhenOperands().get(i), out);
      out.append(" THEN ");
      render(c.getThenOperands().get(i), out);
    }
    if (c.getElseOperand() != null
        && !(c.getElseOperand() instanceof SqlLiteral l
            && l.getTypeName().getName().equals("NULL"))) {
      out.append(" ELSE ");
      render(c.getElseOperand(), out);
    }
    out.append(" END");
  }

  /** {@code ORDER BY a, b DESC} of an aggregate's ordering list. */
  private static void renderOrderBy(SqlNode list, StringBuilder out) {
    out.append("ORDER BY ");
    List<SqlNode> items =
        list instanceof org.apache.calcite.sql.SqlNodeList l ? l.getList() : List.of(list);
    for (int i = 0; i < items.size(); i++) {
      if (i > 0) {
        out.append(", ");
      }
      SqlNode item = items.get(i);
      String suffix = "";
      while (item instanceof SqlCall c
          && (c.getKind() == SqlKind.DESCENDING
              || c.getKind() == SqlKind.NULLS_FIRST
              || c.getKind() == SqlKind.NULLS_LAST)) {
        suffix =
            (c.getKind() == SqlKind.DESCENDING
                    ? " DESC"
                    : c.getKind() == SqlKind.NULLS_FIRST ? " NULLS FIRST" : " NULLS LAST")
                + suffix;
        item = c.operand(0);
      }
      render(item, out);
      out.append(suffix);
    }
  }

  private static void renderCall(SqlCall call, StringBuilder out) {
    SqlOperator op = call.getOperator();
    List<SqlNode> operands = call.getOperandList();
    switch (call.getKind()) {
      case AS -> {
        render(operands.get(0), out);
        return;
      }
      case CAST -> {
        out.append("CAST(");
        render(operands.get(0), out);
        out.append(" AS ");
        render(operands.get(1), out);
        out.append(')');
        return;
      }
      case OVER -> {
        render(operands.get(0), out);
        out.append(" OVER ");
        SqlNode window = operands.get(1);
        if (window instanceof SqlIdentifier) {
          render(window, out);
        } else {
          out.append('(').append(fallback(window)).append(')');
        }
        return;
      }
      case WITHIN_GROUP -> {
        render(operands.get(0), out);
        out.append(" WITHIN GROUP (");
        renderOrderBy(operands.get(1), out);
        out.append(')');
        return;
      }
      case FILTER -> {
        render(operands.get(0), out);
        out.append(" FILTER (WHERE ");
        render(operands.get(1), out);
        out.append(')');
        return;
      }
      case BETWEEN -> {
        out.append('(');
        render(operands.get(0), out);
        boolean negated =
            op instanceof org.apache.calcite.sql.fun.SqlBetweenOperator between
                && between.isNegated();
        out.append(negated ? " NOT BETWEEN " : " BETWEEN ");
        render(operands.get(1), out);
        out.append(" AND ");
        render(operands.get(2), out);
        out.append(')');
        return;
      }
      case IN, NOT_IN -> {
        out.append('(');
        render(operands.get(0), out);
        out.append(' ').append(op.getName()).append(" (");
        render(operands.get(1), out);
        out.append("))");
        return;
      }
      case LIKE, SIMILAR -> {
        out.append('(');
        render(operands.get(0), out);
        out.append(' ').append(op.getName()).append(' ');
        render(operands.get(1), out);
        if (operands.size() > 2 && operands.get(2) != null) {
          out.append(" ESCAPE ");
          render(operands.get(2), out);
        }
        out.append(')');
        return;
      }
      case MINUS_PREFIX -> {
        if (operands.get(0) instanceof SqlNumericLiteral) {
          out.append('-');
          render(operands.get(0), out);
        } else {
          out.append("-(");
          render(operands.get(0), out);
          out.append(')');
        }
        return;
      }
      default -> {}
    }
    if (op instanceof SqlBinaryOperator && operands.size() == 2) {
      out.append('(');
      render(operands.get(0), out);
      out.append(' ').append(op.getName()).append(' ');
      render(operands.get(1), out);
      out.append(')');
    } else if (op instanceof SqlPrefixOperator && operands.size() == 1) {
      out.append('(').append(op.getName()).append(' ');
      render(operands.get(0), out);
      out.append(')');
    } else if (op instanceof SqlPostfixOperator && operands.size() == 1) {
      out.append('(');
      render(operands.get(0), out);
      out.append(' ').append(op.getName()).append(')');
    } else if (call instanceof SqlBasicCall
        && op.getName().matches("[A-Za-z_][A-Za-z0-9_]*")
        && call.getKind() != SqlKind.EXTRACT
        && call.getKind() != SqlKind.POSITION
        && call.getKind() != SqlKind.TRIM
        && !op.getName().equalsIgnoreCase("SUBSTRING")) {
      out.append(op.getName().toLowerCase(Locale.ROOT)).append('(');
      if (call.getFunctionQuantifier() != null) {
        out.append(call.getFunctionQuantifier().toValue()).append(' ');
      }
      if (operands.isEmpty() && call.getKind() == SqlKind.COUNT) {
        out.append('*');
      }
      List<SqlNode> args = new ArrayList<>(operands);
      SqlNode orderBy = null;
      if (!args.isEmpty()
          && args.get(args.size() - 1) instanceof org.apache.calcite.sql.SqlNodeList l
          && call.getOperator().isAggregator()) {
        // string_agg(s, ',' ORDER BY k): the ordering is the aggregate's last operand.
        orderBy = l;
        args.remove(args.size() - 1);
      }
      join(args, ", ", out);
      if (orderBy != null) {
        out.append(' ');
        renderOrderBy(orderBy, out);
      }
      out.append(')');
    } else {
      out.append(fallback(call));
    }
  }

  private static void join(List<SqlNode> nodes, String separator, StringBuilder out) {
    for (int i = 0; i < nodes.size(); i++) {
      if (i > 0) {
        out.append(separator);
      }
      render(nodes.get(i), out);
    }
  }

  /** Calcite's own SQL for {@code node}, in PostgreSQL's spelling, on one line. */
  private static String fallback(SqlNode node) {
    String sql =
        node.toSqlString(
                c ->
                    c.withDialect(PostgresqlSqlDialect.DEFAULT)
                        .withQuoteAllIdentifiers(false)
                        .withAlwaysUseParentheses(false)
                        .withClauseStartsLine(false)
                        .withSelectListItemsOnSeparateLines(false)
                        .withIndentation(0))
            .getSql();
    return sql.replaceAll("\\s+", " ").strip();
  }
}
