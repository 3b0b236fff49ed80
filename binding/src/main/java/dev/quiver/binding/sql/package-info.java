/**
 * The SQL front end and session state: {@link dev.quiver.binding.sql.StatementRunner} parses a
 * statement ({@link dev.quiver.binding.statement}) and {@code StatementExecutor} runs it (DDL,
 * INSERT, SET run at once; queries become lazy frames), {@link dev.quiver.binding.sql.SqlPipeline}
 * configures Calcite to parse, validate, convert, decorrelate and optimize (with Quiver's own
 * passes from {@link dev.quiver.binding.optimizer}), the catalog of tables, views and UDFs, and
 * {@link dev.quiver.binding.sql.QueryExecution}, one running query with its allocator and memory
 * limit.
 */
package dev.quiver.binding.sql;
