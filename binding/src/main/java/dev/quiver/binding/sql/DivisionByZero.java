package dev.quiver.binding.sql;

import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Division and modulo by zero give NULL instead of failing (setting {@code
 * quiver.sql.division_by_zero = 'null'}): every divisor {@code b} of {@code a / b}, {@code a % b}
 * and {@code MOD(a, b)} becomes {@code NULLIF(b, 0)} before validation, so the result's type is
 * NULL-able wherever it can be NULL and every type (integer, decimal, floating point) follows the
 * one rule. By default a zero divisor is an error for every type, as in PostgreSQL.
 */
final class DivisionByZero {
  private DivisionByZero() {}

  /** Rewrites the divisions of {@code statement} in place. */
  static void nullOnZero(SqlNode statement) {
    statement.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlBasicCall division
                && (call.getKind() == SqlKind.DIVIDE
                    || call.getKind() == SqlKind.MOD
                    // MOD(a, b) is an unresolved function until validation.
                    || call.getOperator().getName().equalsIgnoreCase("MOD"))
                && call.operandCount() == 2
                && !isNullIfZero(call.operand(1))) {
              SqlNode divisor = call.operand(1);
              SqlParserPos pos = divisor.getParserPosition();
              division.setOperand(
                  1,
                  SqlStdOperatorTable.NULLIF.createCall(
                      pos, divisor, SqlLiteral.createExactNumeric("0", pos)));
            }
            return super.visit(call);
          }
        });
  }

  /** Whether {@code node} is already {@code NULLIF(x, 0)} (a statement validated twice). */
  private static boolean isNullIfZero(SqlNode node) {
    return node instanceof SqlCall c
        && c.getKind() == SqlKind.NULLIF
        && c.operand(1) instanceof SqlLiteral l
        && l.toValue() != null
        && l.toValue().equals("0");
  }
}
