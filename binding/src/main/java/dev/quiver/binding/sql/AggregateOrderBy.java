package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

/**
 * Aggregate calls as Calcite's parser leaves them, made to validate. PERCENTILE_CONT and
 * PERCENTILE_DISC get Quiver's operators ({@link QuiverFunctions}: DOUBLE interpolation, typed
 * under FILTER too). {@code string_agg(s, ',' ORDER BY k) FILTER (WHERE ...)}: the parser keeps the
 * ORDER BY as the aggregate's last operand, which Calcite's validator turns into WITHIN GROUP only
 * for a call that stands alone; under FILTER it fails ("SqlNodeList: needToImplement"). Rewritten
 * here into the equivalent {@code listagg(s, ',') WITHIN GROUP (ORDER BY k) FILTER (WHERE ...)}.
 */
final class AggregateOrderBy {
  private static final Set<String> ORDERED = Set.of("string_agg", "listagg");

  private AggregateOrderBy() {}

  static void rewrite(SqlNode node) {
    if (node instanceof SqlNodeList list) {
      for (SqlNode n : list) {
        rewrite(n);
      }
      return;
    }
    if (!(node instanceof SqlCall call)) {
      return;
    }
    if (call instanceof SqlBasicCall basic) {
      // The parser builds these two itself (they are keywords), with Calcite's operators.
      if (basic.getOperator() == SqlStdOperatorTable.PERCENTILE_CONT) {
        basic.setOperator(QuiverFunctions.PERCENTILE_CONT);
      } else if (basic.getOperator() == SqlStdOperatorTable.PERCENTILE_DISC) {
        basic.setOperator(QuiverFunctions.PERCENTILE_DISC);
      }
    }
    if (call.getKind() == SqlKind.FILTER && call.operand(0) instanceof SqlBasicCall agg) {
      List<SqlNode> operands = agg.getOperandList();
      if (!operands.isEmpty()
          && operands.get(operands.size() - 1) instanceof SqlNodeList order
          && ORDERED.contains(agg.getOperator().getName().toLowerCase(Locale.ROOT))) {
        List<SqlNode> args = new ArrayList<>(operands.subList(0, operands.size() - 1));
        // LISTAGG is string_agg that takes WITHIN GROUP (Calcite's STRING_AGG refuses it).
        SqlCall unordered =
            SqlStdOperatorTable.LISTAGG.createCall(
                agg.getFunctionQuantifier(), agg.getParserPosition(), args);
        call.setOperand(
            0,
            SqlStdOperatorTable.WITHIN_GROUP.createCall(agg.getParserPosition(), unordered, order));
      }
    }
    for (SqlNode operand : call.getOperandList()) {
      if (operand != null) {
        rewrite(operand);
      }
    }
  }
}
