/**
 * JMH micro-benchmarks of operators and of shuffle encoding and transfer over Flight per
 * compression; built as {@code benchmarks.jar}, not part of the test suite.
 */
package dev.quiver.benchmarks;
