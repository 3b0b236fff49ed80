package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
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
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlNameMatcher;

/** Calcite's standard operators, with corrections where their typing is wrong. */
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

  /**
   * ROUND of a decimal typed with the scale it rounds to, as DuckDB and PostgreSQL give it: {@code
   * ROUND(DECIMAL(p, s), d)} is {@code DECIMAL(p, max(d, 0))} for a literal {@code d < s} (and for
   * no {@code d}). Calcite keeps the argument's type, so {@code CAST(ROUND(2.55, 1) AS VARCHAR)}
   * was '2.60' instead of '2.6'. {@code p} digits still hold the rounded value: it loses at least
   * one fractional digit and gains at most one integer digit.
   */
  private static final SqlOperator ROUND =
      new SqlFunction(
          "ROUND",
          SqlKind.OTHER_FUNCTION,
          StandardFunctions::roundType,
          null,
          OperandTypes.NUMERIC_OPTIONAL_INTEGER,
          SqlFunctionCategory.NUMERIC);

  private static RelDataType roundType(SqlOperatorBinding binding) {
    RelDataType arg = binding.getOperandType(0);
    if (arg.getSqlTypeName() == SqlTypeName.DECIMAL) {
      Integer digits =
          binding.getOperandCount() == 1
              ? Integer.valueOf(0)
              : binding.isOperandLiteral(1, false)
                  ? binding.getOperandLiteralValue(1, Integer.class)
                  : null;
      if (digits != null && digits < arg.getScale()) {
        RelDataTypeFactory types = binding.getTypeFactory();
        RelDataType rounded =
            types.createSqlType(SqlTypeName.DECIMAL, arg.getPrecision(), Math.max(digits, 0));
        boolean nullable =
            arg.isNullable()
                || (binding.getOperandCount() > 1 && binding.getOperandType(1).isNullable());
        return types.createTypeWithNullability(rounded, nullable);
      }
    }
    return ReturnTypes.ARG0_NULLABLE.inferReturnType(binding);
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
          found.forEach(op -> operators.add(corrected(op)));
        }

        @Override
        public List<SqlOperator> getOperatorList() {
          return SqlStdOperatorTable.instance().getOperatorList().stream()
              .map(StandardFunctions::corrected)
              .toList();
        }
      };

  private static SqlOperator corrected(SqlOperator op) {
    if (op == SqlStdOperatorTable.PERCENTILE_CONT) {
      return QuiverFunctions.PERCENTILE_CONT;
    }
    if (op == SqlStdOperatorTable.PERCENTILE_DISC) {
      return QuiverFunctions.PERCENTILE_DISC;
    }
    if (op == SqlStdOperatorTable.ROUND) {
      return ROUND;
    }
    return op == SqlStdOperatorTable.LAG ? LAG : op == SqlStdOperatorTable.LEAD ? LEAD : op;
  }
}
