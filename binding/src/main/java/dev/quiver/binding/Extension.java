package dev.quiver.binding;

import dev.quiver.binding.datasource.TableFunction;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.planner.QueryPlanner;
import dev.quiver.binding.udf.ScalarUdf;
import java.util.List;
import java.util.Map;

/**
 * A bundle of additions installed into a session with {@link SessionContext#withExtensions}: a
 * query planner (usually wrapping the current one), physical optimizer rules, UDFs, table functions
 * and tables.
 */
public interface Extension {
  /** Returns the planner the session should use, given the one it has now. */
  default QueryPlanner queryPlanner(QueryPlanner current) {
    return current;
  }

  /** Physical optimizer rules to append. */
  default List<PhysicalOptimizerRule> physicalOptimizerRules() {
    return List.of();
  }

  /** UDFs to register. */
  default List<ScalarUdf> udfs() {
    return List.of();
  }

  /** Table functions to register ({@code FROM name(...)}). */
  default List<TableFunction> tableFunctions() {
    return List.of();
  }

  /** Tables to register, by name. */
  default Map<String, TableProvider> tables() {
    return Map.of();
  }
}
