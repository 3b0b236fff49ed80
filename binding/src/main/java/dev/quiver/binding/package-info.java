/**
 * The single-process engine's public API: {@link dev.quiver.binding.SessionContext} (tables,
 * UDFs, settings, SQL), {@link dev.quiver.binding.DataFrame} and {@link dev.quiver.binding.Expr}
 * for building queries in Java, {@link dev.quiver.binding.SessionConfig} for settings, the
 * extension points a distributed engine plugs into ({@link dev.quiver.binding.TableProvider},
 * {@link dev.quiver.binding.QueryPlanner}, {@link dev.quiver.binding.Extension}) and the typed
 * exceptions every failure surfaces as. It knows nothing of distribution.
 */
package dev.quiver.binding;
