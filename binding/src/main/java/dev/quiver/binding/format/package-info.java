/**
 * Showing results: Arrow values as plain Java values (what {@code Row.get} returns) and batches as
 * a boxed text table ({@code DataFrame.show}).
 */
package dev.quiver.binding.format;
