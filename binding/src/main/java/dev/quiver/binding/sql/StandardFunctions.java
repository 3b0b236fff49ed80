package dev.quiver.binding.sql;

import dev.quiver.binding.functions.ScalarFunctions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.fun.SqlLeadLagAggFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.validate.SqlNameMatcher;

/**
 * Calcite's standard operators, with corrections where their typing is wrong, and without those a
 * function definition ({@link ScalarFunctions}) declares anew.
 */
final class StandardFunctions {
  private StandardFunctions() {}

  /**
   * LAG and LEAD typed NULL-able when their value is: Calcite's are NOT NULL whenever the default
   * is, though a NULL value comes back as it is, so the optimizer folded {@code lag(x, 1, 0) IS
   * NULL} to FALSE and dropped rows.
   */
  private static final class LeadLag extends SqlLeadLagAggFunction {
    LeadLag(SqlKind kind) {
      super(kind);
    }

    @Override
    public RelDataType inferReturnType(SqlOperatorBinding binding) {
      RelDataType type = super.inferReturnType(binding);
      boolean nullable =
          binding.getOperandType(0).isNullable()
              || binding.getOperandCount() < 3
              || binding.getOperandType(2).isNullable();
      return binding.getTypeFactory().createTypeWithNullability(type, nullable);
    }
  }

  private static final SqlOperator LAG = new LeadLag(SqlKind.LAG);
  private static final SqlOperator LEAD = new LeadLag(SqlKind.LEAD);

  /** {@link SqlStdOperatorTable} with the corrected operators in place of Calcite's. */
  static final SqlOperatorTable TABLE =
      new SqlOperatorTable() {
        @Override
        public void lookupOperatorOverloads(
            SqlIdentifier name,
            SqlFunctionCategory category,
            SqlSyntax syntax,
            List<SqlOperator> operators,
            SqlNameMatcher matcher) {
          List<SqlOperator> found = new ArrayList<>();
          SqlStdOperatorTable.instance()
              .lookupOperatorOverloads(name, category, syntax, found, matcher);
          found.stream().filter(op -> !redeclared(op)).forEach(op -> operators.add(corrected(op)));
        }

        @Override
        public List<SqlOperator> getOperatorList() {
          return SqlStdOperatorTable.instance().getOperatorList().stream()
              .filter(op -> !redeclared(op))
              .map(StandardFunctions::corrected)
              .toList();
        }
      };

  /** Names of the functions whose definitions declare their own operator (ROUND). */
  private static final Set<String> REDECLARED =
      ScalarFunctions.OPERATORS.getOperatorList().stream()
          .map(op -> op.getName().toUpperCase(Locale.ROOT))
          .collect(Collectors.toUnmodifiableSet());

  /** Whether {@code op} is a function a registry definition declares anew. */
  private static boolean redeclared(SqlOperator op) {
    return op instanceof SqlFunction && REDECLARED.contains(op.getName().toUpperCase(Locale.ROOT));
  }

  private static SqlOperator corrected(SqlOperator op) {
    if (op == SqlStdOperatorTable.PERCENTILE_CONT) {
      return QuiverFunctions.PERCENTILE_CONT;
    }
    if (op == SqlStdOperatorTable.PERCENTILE_DISC) {
      return QuiverFunctions.PERCENTILE_DISC;
    }
    return op == SqlStdOperatorTable.LAG ? LAG : op == SqlStdOperatorTable.LEAD ? LEAD : op;
  }
}
