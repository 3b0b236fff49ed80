/** The simple row operators: filter, projection, limits, union, literal rows and empty sources. */
package dev.quiver.binding.physical.operator;
