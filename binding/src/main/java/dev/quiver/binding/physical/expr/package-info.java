/**
 * Physical scalar expressions, evaluated a whole batch at a time over Arrow vectors with
 * type-specialized loops on primitive arrays and bitmap words; literals stay scalars inside
 * kernels. Integers and decimals are exact: overflow, division by zero and bad casts are typed
 * errors.
 */
package dev.quiver.binding.physical.expr;
