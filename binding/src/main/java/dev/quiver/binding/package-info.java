/**
 * The single-process engine's entry point: {@link dev.quiver.binding.SessionContext} (tables, UDFs,
 * settings, SQL) and the {@link dev.quiver.binding.Extension}s a distributed engine installs
 * through. It sits on top of every other package of the binding, so that none of them imports it;
 * the rest of the public API lives where its implementation does: {@code dataframe} ({@code
 * DataFrame}, {@code Expr}, {@code Row}, {@code JoinType}), {@code settings} ({@code
 * SessionConfig}), {@code errors} (the typed exceptions every failure surfaces as), {@code
 * datasource} ({@code TableProvider}, {@code ScanRequest}), {@code planner} ({@code QueryPlanner},
 * {@code PlanningContext}), {@code logical} ({@code LogicalPlan}) and {@code udf} ({@code
 * ScalarUdf}). It knows nothing of distribution.
 */
package dev.quiver.binding;
