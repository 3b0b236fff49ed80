package dev.quiver.binding.dataframe;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;

/**
 * Resolves scalar function names that are not built in (the session's UDFs) to Calcite operators.
 * The SQL front end supplies one, either as an argument of the {@link DataFrameOps} overloads or
 * inside the Calcite {@code Context} of the RelBuilder's planner ({@code
 * Frameworks.newConfigBuilder().context(Contexts.of(resolver))}).
 */
@FunctionalInterface
public interface FunctionResolver {
  /** The operator named {@code lowerCaseName}, or null when there is none. */
  SqlOperator resolve(String lowerCaseName);

  /** Names this resolver knows, offered as suggestions when a name is misspelt. */
  default Collection<String> names() {
    return List.of();
  }

  /** A resolver that knows no functions. */
  static FunctionResolver none() {
    return name -> null;
  }

  /** A resolver over the function-syntax operators of {@code table}, matched case-insensitively. */
  static FunctionResolver of(SqlOperatorTable table) {
    return new FunctionResolver() {
      @Override
      public SqlOperator resolve(String lowerCaseName) {
        for (SqlOperator op : table.getOperatorList()) {
          if (op.getSyntax() == SqlSyntax.FUNCTION
              && op.getName().toLowerCase(Locale.ROOT).equals(lowerCaseName)) {
            return op;
          }
        }
        return null;
      }

      @Override
      public Collection<String> names() {
        List<String> names = new ArrayList<>();
        for (SqlOperator op : table.getOperatorList()) {
          if (op.getSyntax() == SqlSyntax.FUNCTION) {
            names.add(op.getName().toLowerCase(Locale.ROOT));
          }
        }
        return names;
      }
    };
  }
}
