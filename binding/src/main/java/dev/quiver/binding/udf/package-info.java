/**
 * User-defined functions: {@link dev.quiver.binding.udf.ScalarUdf}, a function over Arrow vectors
 * that SQL and DataFrame expressions call by name once registered with the session.
 */
package dev.quiver.binding.udf;
