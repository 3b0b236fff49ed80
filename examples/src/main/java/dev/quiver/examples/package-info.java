/** Runnable examples and the quiver command line. */
package dev.quiver.examples;
