package dev.quiver.binding.sql;

import dev.quiver.binding.errors.QuiverException;
import java.util.function.UnaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * {@code current_setting('name')} (PostgreSQL, DuckDB): the session's value of a setting, as text.
 * The value is the session's when the statement is parsed, so the call becomes that text here,
 * before validation; the planner and the executors of a cluster see only a literal.
 */
final class CurrentSettings {
  private CurrentSettings() {}

  private static final String NAME = "CURRENT_SETTING";

  /** Replaces each call of {@code statement} in place by {@code value} of its setting name. */
  static void fold(SqlNode statement, UnaryOperator<String> value) {
    statement.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            for (int i = 0; i < call.operandCount(); i++) {
              SqlNode operand = call.operand(i);
              if (isCall(operand)) {
                call.setOperand(i, literal((SqlCall) operand, value));
              }
            }
            return super.visit(call);
          }

          @Override
          public Void visit(SqlNodeList list) {
            for (int i = 0; i < list.size(); i++) {
              if (isCall(list.get(i))) {
                list.set(i, literal((SqlCall) list.get(i), value));
              }
            }
            return super.visit(list);
          }
        });
  }

  private static boolean isCall(SqlNode node) {
    return node instanceof SqlCall call
        && call.getOperator().getName().equalsIgnoreCase(NAME)
        && call.getFunctionQuantifier() == null;
  }

  private static SqlNode literal(SqlCall call, UnaryOperator<String> value) {
    if (call.operandCount() != 1 || !(call.operand(0) instanceof SqlCharStringLiteral name)) {
      throw new QuiverException(
          "current_setting takes one setting name as a string literal, such as"
              + " current_setting('batch_size')");
    }
    String v = value.apply(name.getValueAs(String.class));
    return v == null
        ? SqlLiteral.createNull(call.getParserPosition())
        : SqlLiteral.createCharString(v, call.getParserPosition());
  }
}
