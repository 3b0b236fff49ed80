/**
 * The built-in scalar functions, one definition each ({@link
 * dev.quiver.binding.functions.ScalarFunction}): SQL names, the Calcite operators that type and
 * check a call (where Calcite's standard and PostgreSQL tables lack them), the kernel that turns a
 * call into a physical expression, and the docs. {@link
 * dev.quiver.binding.functions.ScalarFunctions} is the registry that the SQL operator table, the
 * translator from Calcite's expressions and the README's function table all read. It knows nothing
 * of SQL text or plans.
 */
package dev.quiver.binding.functions;
