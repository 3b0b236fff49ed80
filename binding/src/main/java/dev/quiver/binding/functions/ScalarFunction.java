package dev.quiver.binding.functions;

import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.sql.SqlOperator;

/**
 * One built-in scalar function: everything Quiver states about it, in one place.
 *
 * @param names its name and aliases, lower case, as SQL calls it
 * @param group its section of the README and JDBC's function group
 * @param signature how it is called
 * @param description what it returns
 * @param example a query using every name (run by FunctionsTest)
 * @param operators the operators Calcite validates and types a call with, which Quiver declares or
 *     picks from Calcite's other libraries; empty when Calcite's standard or PostgreSQL table
 *     declares them
 * @param kernel turns a validated call into a physical expression; null for syntax that the
 *     translator handles by operator kind (LIKE, CASE, CAST) and for functions the SQL layer
 *     rewrites before validation
 */
public record ScalarFunction(
    List<String> names,
    Group group,
    String signature,
    String description,
    String example,
    List<SqlOperator> operators,
    Kernel kernel) {

  /** Copies the lists. */
  public ScalarFunction {
    names = List.copyOf(names);
    operators = List.copyOf(operators);
  }

  /** How a call of the function becomes a physical expression. */
  @FunctionalInterface
  public interface Kernel {
    /** The physical expression computing {@code call}. */
    PhysicalExpr translate(Call call);
  }

  /** A call being translated: its Calcite form, its result type and its operands translated. */
  public interface Call {
    /** The validated call. */
    RexCall rex();

    /** The call's result type. */
    ArrowType type();

    /** Operand {@code i}, translated. */
    PhysicalExpr arg(int i);

    /** All operands, translated. */
    default List<PhysicalExpr> args() {
      List<PhysicalExpr> out = new ArrayList<>();
      for (int i = 0; i < arity(); i++) {
        out.add(arg(i));
      }
      return out;
    }

    /** The number of operands. */
    default int arity() {
      return rex().getOperands().size();
    }
  }

  /**
   * A function with a kernel; {@code names} is a comma-separated list, the first the function's
   * name, the others aliases.
   */
  static ScalarFunction of(
      String names,
      Group group,
      String signature,
      String description,
      String example,
      Kernel kernel) {
    return new ScalarFunction(
        split(names), group, signature, description, example, List.of(), kernel);
  }

  /**
   * Syntax the translator handles by operator kind, or a function the SQL layer rewrites:
   * documented here, translated elsewhere.
   */
  static ScalarFunction documented(
      String names, Group group, String signature, String description, String example) {
    return new ScalarFunction(
        split(names), group, signature, description, example, List.of(), null);
  }

  /** This function, validated with {@code ops}. */
  ScalarFunction declaring(SqlOperator... ops) {
    return new ScalarFunction(names, group, signature, description, example, List.of(ops), kernel);
  }

  private static List<String> split(String names) {
    List<String> out = new ArrayList<>();
    for (String n : names.split(",")) {
      out.add(n.strip().toLowerCase(Locale.ROOT));
    }
    return out;
  }
}
