/**
 * Example applications: {@link dev.quiver.examples.app.RevenueReport} is ordinary application code
 * typed against the binding's {@code SessionContext}; {@link dev.quiver.examples.app.GuiceApp} runs
 * it unchanged in process or on a cluster by swapping one Guice module, and {@link
 * dev.quiver.examples.app.ExtensionApp} does the same without Guice.
 */
package dev.quiver.examples.app;
