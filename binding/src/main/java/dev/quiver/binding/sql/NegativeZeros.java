package dev.quiver.binding.sql;

import java.util.List;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * A negated approximate zero ({@code -0.0E0}, {@code -(0E0)}) as the negative zero it is, as in
 * DuckDB. Calcite's parser folds a minus into the literal after it, and a literal's BigDecimal has
 * no -0.0: the sign is lost before any later pass sees it, but for the text. Such a literal becomes
 * {@code CAST('-0.0' AS DOUBLE)}, which the constant folder leaves to run time (a folded literal
 * would lose the sign again).
 */
final class NegativeZeros {
  private NegativeZeros() {}

  /** Replaces in {@code statement}, parsed from {@code text}, each negated approximate zero. */
  static SqlNode restore(SqlNode statement, CharSequence text) {
    statement.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            List<SqlNode> operands = call.getOperandList();
            for (int i = 0; i < operands.size(); i++) {
              if (negativeZero(operands.get(i), text)) {
                call.setOperand(i, castOfText(operands.get(i).getParserPosition()));
              }
            }
            return super.visit(call);
          }

          @Override
          public Void visit(SqlNodeList list) {
            for (int i = 0; i < list.size(); i++) {
              if (negativeZero(list.get(i), text)) {
                list.set(i, castOfText(list.get(i).getParserPosition()));
              }
            }
            return super.visit(list);
          }
        });
    return statement;
  }

  /**
   * Whether {@code node} is an approximate zero literal whose text starts with an odd number of
   * minus signs (the parser folds {@code - -0E0} into one literal too).
   */
  private static boolean negativeZero(SqlNode node, CharSequence text) {
    if (!(node instanceof SqlNumericLiteral literal)
        || literal.isExact()
        || literal.bigDecimalValue() == null
        || literal.bigDecimalValue().signum() != 0) {
      return false;
    }
    int at =
        LenientParser.offsetOf(
            text, node.getParserPosition().getLineNum(), node.getParserPosition().getColumnNum());
    if (at < 0) {
      return false;
    }
    int minus = 0;
    for (int i = at; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '-') {
        minus++;
      } else if (c != '+' && c != '(' && !Character.isWhitespace(c)) {
        break;
      }
    }
    return minus % 2 == 1;
  }

  private static SqlNode castOfText(SqlParserPos pos) {
    return SqlStdOperatorTable.CAST.createCall(
        pos,
        SqlLiteral.createCharString("-0.0", pos),
        new SqlDataTypeSpec(new SqlBasicTypeNameSpec(SqlTypeName.DOUBLE, pos), pos));
  }
}
