/**
 * The Arrow Flight SQL server ({@code quiver serve}): one Quiver session per client connection over
 * a shared catalog, statements and prepared statements with streamed results, database metadata,
 * cancellation, and optionally results served straight from the executors.
 */
package dev.quiver.flightsql;
