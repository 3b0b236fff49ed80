/**
 * The typed exceptions every failure of the binding surfaces as ({@link
 * dev.quiver.binding.errors.QuiverException} and its subclasses, carried across the wire by the
 * distributed engine and rethrown as the same type), and {@link
 * dev.quiver.binding.errors.Suggestions}, the closest names they suggest. The bottom of the
 * binding: it imports no other package of it.
 */
package dev.quiver.binding.errors;
